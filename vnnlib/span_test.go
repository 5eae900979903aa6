package vnnlib

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestMirroredComparisons checks that both readers read "c rel v" as
// "v mirror(rel) c", for the inputs (strict read as closed) and the
// output differences (strict kept), with the same lines.
func TestMirroredComparisons(t *testing.T) {
	for _, rel := range []string{"<=", ">=", "<", ">"} {
		for _, c := range []string{"0.5", "(- 2)"} {
			v1 := func(a string) string {
				return "(declare-const X_0 Real)\n(assert (<= -3 X_0))\n(assert (<= X_0 3))\n(assert " + a + ")\n"
			}
			s1, err1 := Read(strings.NewReader(v1(fmt.Sprintf("(%s %s X_0)", rel, c))), "a.vnnlib")
			s2, err2 := Read(strings.NewReader(v1(fmt.Sprintf("(%s X_0 %s)", mirror(rel), c))), "a.vnnlib")
			if err1 != nil || err2 != nil || !reflect.DeepEqual(s1.Box, s2.Box) {
				t.Errorf("VNN-LIB 1, %s %s: %v (%v) and %v (%v)", rel, c, s1, err1, s2, err2)
			}
			v2 := func(a string) string {
				return pairHead + pairBox + "(assert " + a + ")\n(assert (<= (- Y_g[0] Y_f[0]) 7))\n(assert (>= (- Y_g[0] Y_f[0]) -7))\n"
			}
			p1, err1 := ReadPair(strings.NewReader(v2(fmt.Sprintf("(%s %s (- Y_g[0] Y_f[0]))", rel, c))), "a.vnnlib")
			p2, err2 := ReadPair(strings.NewReader(v2(fmt.Sprintf("(%s (- Y_g[0] Y_f[0]) %s)", mirror(rel), c))), "a.vnnlib")
			if err1 != nil || err2 != nil || !reflect.DeepEqual(p1.Outputs, p2.Outputs) {
				t.Errorf("VNN-LIB 2.0, %s %s: %+v (%v) and %+v (%v)", rel, c, p1, err1, p2, err2)
			}
		}
	}
}

// TestSpanTighten checks the range kept by span.tighten, with the
// strictness of each side, and the emptiness it reports.
func TestSpanTighten(t *testing.T) {
	type cmp struct {
		rel string
		c   float64
	}
	for _, c := range []struct {
		cmps     []cmp
		want     span
		nonEmpty bool
	}{
		{[]cmp{{"<=", 1}}, span{hi: 1, hasHi: true, hiLine: 1}, true},
		{[]cmp{{"<=", 1}, {"<", 1}}, span{hi: 1, hasHi: true, strictHi: true, hiLine: 2}, true},
		{[]cmp{{"<", 1}, {"<=", 1}}, span{hi: 1, hasHi: true, strictHi: true, hiLine: 1}, true},
		{[]cmp{{">", 0}, {">=", 1}}, span{lo: 1, hasLo: true, loLine: 2}, true},
		{[]cmp{{"=", 2}}, span{lo: 2, hi: 2, hasLo: true, hasHi: true, loLine: 1, hiLine: 1}, true},
		{[]cmp{{">=", 1}, {"<", 1}}, span{lo: 1, hi: 1, hasLo: true, hasHi: true, strictHi: true, loLine: 1, hiLine: 2}, false},
		{[]cmp{{">=", 2}, {"<=", 1}}, span{lo: 2, hi: 1, hasLo: true, hasHi: true, loLine: 1, hiLine: 2}, false},
	} {
		var s span
		ok := true
		for k, m := range c.cmps {
			ok = s.tighten(k+1, m.rel, m.c)
		}
		if s != c.want || ok != c.nonEmpty {
			t.Errorf("%v: %+v non-empty %v, want %+v %v", c.cmps, s, ok, c.want, c.nonEmpty)
		}
	}
}
