package suite

import (
	"math"
	"regexp"
	"testing"
)

// TestD6b939fBounds checks the embedded table of d6b939f's ACAS Xu bounds:
// instances of properties 3 and 4, finite positive bounds.
func TestD6b939fBounds(t *testing.T) {
	ref, err := d6b939fBounds()
	if err != nil {
		t.Fatal(err)
	}
	if len(ref) == 0 || len(ref) > 84 {
		t.Fatalf("%d instances, want 1 to 84", len(ref))
	}
	name := regexp.MustCompile(`^[34]/[1-5]_[1-9]$`)
	for k, b := range ref {
		if !name.MatchString(k) || !(b > 0) || math.IsInf(b, 1) {
			t.Errorf("instance %q: bound %v", k, b)
		}
	}
}
