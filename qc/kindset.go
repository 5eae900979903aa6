package qc

import (
	"strings"
)

// KindSet is a set of Kinds.
type KindSet uint64

// Kinds returns the set of the given kinds.
func Kinds(ks ...Kind) KindSet {
	var s KindSet
	for _, k := range ks {
		s = s.With(k)
	}
	return s
}

// Has reports whether k is in s.
func (s KindSet) Has(k Kind) bool { return k >= 0 && k < numKinds && s&(1<<k) != 0 }

// With returns s with k added.
func (s KindSet) With(k Kind) KindSet {
	if k < 0 || k >= numKinds {
		return s
	}
	return s | 1<<k
}

// Without returns s with k removed.
func (s KindSet) Without(k Kind) KindSet {
	if k < 0 || k >= numKinds {
		return s
	}
	return s &^ (1 << k)
}

// Slice returns the kinds of s in increasing order.
func (s KindSet) Slice() []Kind {
	var out []Kind
	for k := range numKinds {
		if s.Has(k) {
			out = append(out, k)
		}
	}
	return out
}

// String returns the kinds' names separated by commas.
func (s KindSet) String() string {
	var names []string
	for _, k := range s.Slice() {
		names = append(names, k.String())
	}
	return strings.Join(names, ",")
}
