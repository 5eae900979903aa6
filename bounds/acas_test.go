package bounds

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds/boundstest"
)

// TestACASXuFloat16 bounds f'_t - f_t on the 84 ACAS Xu float16 instances
// of properties 3 and 4, checks the bound against the attained differences
// and samples, and compares with NeuroDiff's first pass. Run with -v to see
// the table and the unstable neurons per layer; by default every seventh
// instance, all with NNBOUND_LONG=1.
func TestACASXuFloat16(t *testing.T) {
	insts := boundstest.ACASInstances(t)
	if os.Getenv("NNBOUND_LONG") == "" {
		insts = everyNth(insts, 7)
	}
	ratios := map[string][]float64{}
	var total time.Duration
	rng := rand.New(rand.NewPCG(9, 0))
	for _, inst := range insts {
		f, g := inst.Networks(t)
		in := Inputs{Box: Box{Lo: inst.Lo, Hi: inst.Hi}, Pairing: SameInput}
		start := time.Now()
		pb, err := Pair(f, g, in, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		total += el
		o := pb.Output[inst.Target]
		ours := max(-o.Lo, o.Hi)
		ratios[inst.Prop] = append(ratios[inst.Prop], ours/inst.NeuroDiff)
		if o.Lo > inst.AttainedLo || o.Hi < inst.AttainedHi {
			t.Fatalf("prop %s net %s: bound %v misses the attained range [%v, %v]", inst.Prop, inst.Net, o, inst.AttainedLo, inst.AttainedHi)
		}
		for range 20 {
			x := boundstest.Uniform(rng, inst.Lo, inst.Hi)
			y1, _ := f.Eval(x)
			y2, _ := g.Eval(x)
			if d := y2[inst.Target] - y1[inst.Target]; !near(o, d, math.Abs(y1[inst.Target])) {
				t.Fatalf("prop %s net %s: sampled difference %v outside %v", inst.Prop, inst.Net, d, o)
			}
		}
		t.Logf("prop %s net %s: ours %.4g neurodiff %.4g ratio %.4f attained %.3g time %v unstable f %v f' %v",
			inst.Prop, inst.Net, ours, inst.NeuroDiff, ours/inst.NeuroDiff, max(-inst.AttainedLo, inst.AttainedHi),
			el.Round(time.Millisecond), pb.Net1.Unstable(f), pb.Net2.Unstable(g))
	}
	for _, p := range []string{"3", "4"} {
		r := ratios[p]
		slices.Sort(r)
		t.Logf("property %s: median ratio ours/NeuroDiff %.4f (min %.4f, max %.4f)", p, median(r), r[0], r[len(r)-1])
	}
	t.Logf("total time %v for %d instances", total.Round(time.Millisecond), len(insts))
}

// everyNth returns every n-th element of s.
func everyNth[T any](s []T, n int) []T {
	var out []T
	for i := 0; i < len(s); i += n {
		out = append(out, s[i])
	}
	return out
}

// median returns the median of sorted values.
func median(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	return (s[(n-1)/2] + s[n/2]) / 2
}
