package benchdata

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
)

// TestLoadACAS reads the 84 instances of properties 3 and 4 with both
// boxes: every instance has the peers' bounds and the data's attained
// differences, the two boxes differ only by the rounding to float32, and
// unknown properties and nets are ErrUnknown.
func TestLoadACAS(t *testing.T) {
	dir := filepath.Dir(sharedtest.Path(t, "data", "benchmarks", "properties.json"))
	wide, err := LoadACAS(dir, []string{"3", "4"}, nil, Float64)
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := LoadACAS(dir, []string{"3", "4"}, nil, Float32)
	if err != nil {
		t.Fatal(err)
	}
	if len(wide) != 84 || len(narrow) != 84 {
		t.Fatalf("%d and %d instances, want 84", len(wide), len(narrow))
	}
	for i, a := range wide {
		b := narrow[i]
		if a.Prop != b.Prop || a.Net != b.Net || a.F != b.F {
			t.Fatalf("instance %d: %s/%s against %s/%s", i, a.Prop, a.Net, b.Prop, b.Net)
		}
		for _, v := range []float64{a.NeuroDiff, a.ReluDiffPlus, a.FoundTSV, a.AttainedLo, a.AttainedHi} {
			if math.IsNaN(v) {
				t.Fatalf("property %s net %s: a value is missing: %+v", a.Prop, a.Net, a)
			}
		}
		if !(a.FoundTSV >= max(-a.AttainedLo, a.AttainedHi)-1e-12) {
			t.Errorf("property %s net %s: found %v below the attained range [%v, %v]", a.Prop, a.Net, a.FoundTSV, a.AttainedLo, a.AttainedHi)
		}
		for k := range a.Lo {
			if math.Abs(a.Lo[k]-b.Lo[k]) > 1e-6 || math.Abs(a.Hi[k]-b.Hi[k]) > 1e-6 {
				t.Fatalf("property %s: boxes [%v, %v] and [%v, %v] differ beyond rounding", a.Prop, a.Lo, a.Hi, b.Lo, b.Hi)
			}
		}
	}
	f, fp, err := wide[0].Networks()
	if err != nil || f.OutputSize() != 5 || fp.OutputSize() != 5 {
		t.Fatalf("networks of %s/%s: %v", wide[0].Prop, wide[0].Net, err)
	}
	for _, q := range [][2][]string{{{"99"}, nil}, {{"3"}, {"1_7"}}} {
		if _, err := LoadACAS(dir, q[0], q[1], Float64); !errors.Is(err, ErrUnknown) {
			t.Errorf("properties %v nets %v: error %v, want ErrUnknown", q[0], q[1], err)
		}
	}
}
