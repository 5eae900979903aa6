package bounds

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds/boundstest"
)

// TestACASXuFloat16 bounds f'_t - f_t on the 84 ACAS Xu float16 instances
// of properties 3 and 4 with each method, checks the bound against the
// attained differences and samples, and compares with NeuroDiff's first
// pass. Run with -v to see, per method and property, the median ratio to
// NeuroDiff, the mean unstable neurons per layer and the time (and with
// NNBOUND_BOUNDS_TABLE=1 one line per instance). By default every seventh
// instance with the default method; all instances and methods with
// NNBOUND_LONG=1.
func TestACASXuFloat16(t *testing.T) {
	insts := boundstest.ACASInstances(t)
	methods := []Options{DefaultOptions()}
	if os.Getenv("NNBOUND_LONG") == "" {
		insts = everyNth(insts, 7)
	} else {
		methods = []Options{{Method: MethodInterval}, {Method: MethodSymbolic}, {Method: MethodOptimised},
			{Method: MethodSymbolic, Split: 16}, {Method: MethodOptimised, Split: 4}, {Method: MethodOptimised, Split: 16}}
	}
	table := os.Getenv("NNBOUND_BOUNDS_TABLE") != ""
	for _, opts := range methods {
		stats := map[string]*acasStats{}
		rng := rand.New(rand.NewPCG(9, 0))
		for _, inst := range insts {
			f, g := inst.Networks(t)
			in := Inputs{Box: Box{Lo: inst.Lo, Hi: inst.Hi}, Pairing: SameInput}
			start := time.Now()
			pb, err := Pair(f, g, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			c := make([]float64, f.OutputSize())
			c[inst.Target] = 1
			o, err := pb.Margin(c)
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(start)
			ours := o.Mag()
			if o.Lo > inst.AttainedLo || o.Hi < inst.AttainedHi {
				t.Fatalf("%v prop %s net %s: bound %v misses the attained range [%v, %v]", opts.Method, inst.Prop, inst.Net, o, inst.AttainedLo, inst.AttainedHi)
			}
			for range 20 {
				x := boundstest.Uniform(rng, inst.Lo, inst.Hi)
				y1, _ := f.Eval(x)
				y2, _ := g.Eval(x)
				if d := y2[inst.Target] - y1[inst.Target]; !near(o, d, math.Abs(y1[inst.Target])) {
					t.Fatalf("%v prop %s net %s: sampled difference %v outside %v", opts.Method, inst.Prop, inst.Net, d, o)
				}
			}
			st := stats[inst.Prop]
			if st == nil {
				st = &acasStats{}
				stats[inst.Prop] = st
			}
			u1, u2 := pb.Net1.Unstable(f), pb.Net2.Unstable(g)
			st.add(ours/inst.NeuroDiff, el, u1)
			if table {
				t.Logf("%v split %d prop %s net %s: ours %.4g neurodiff %.4g ratio %.4f attained %.3g time %v unstable f %v f' %v",
					opts.Method, opts.Split, inst.Prop, inst.Net, ours, inst.NeuroDiff, ours/inst.NeuroDiff, max(-inst.AttainedLo, inst.AttainedHi),
					el.Round(time.Millisecond), u1, u2)
			}
		}
		for _, p := range []string{"3", "4"} {
			if st := stats[p]; st != nil {
				t.Logf("%v split %d property %s: %s", opts.Method, opts.Split, p, st)
			}
		}
	}
}

// acasStats summarises a method's results on the instances of a property.
type acasStats struct {
	ratios   []float64
	times    []time.Duration
	unstable [][]int // per instance, per layer (f only)
}

func (s *acasStats) add(ratio float64, el time.Duration, u []int) {
	s.ratios = append(s.ratios, ratio)
	s.times = append(s.times, el)
	s.unstable = append(s.unstable, u)
}

// String reports the median, min and max ratio to NeuroDiff, the mean
// unstable neurons per hidden layer, the median and range of their total,
// and the median and largest time.
func (s *acasStats) String() string {
	r := slices.Clone(s.ratios)
	slices.Sort(r)
	var per []string
	var totals []float64
	for k := range len(s.unstable[0]) - 1 {
		sum := 0
		for _, u := range s.unstable {
			sum += u[k]
		}
		per = append(per, fmt.Sprintf("%.1f", float64(sum)/float64(len(s.unstable))))
	}
	for _, u := range s.unstable {
		sum := 0
		for _, v := range u {
			sum += v
		}
		totals = append(totals, float64(sum))
	}
	slices.Sort(totals)
	ts := slices.Clone(s.times)
	slices.Sort(ts)
	return fmt.Sprintf("%d instances, ratio ours/NeuroDiff median %.4f (min %.4f, max %.4f); unstable per layer %s, total median %.0f (range %.0f-%.0f); time median %v, max %v",
		len(r), median(r), r[0], r[len(r)-1], strings.Join(per, " "), median(totals), totals[0], totals[len(totals)-1],
		ts[len(ts)/2].Round(time.Millisecond), ts[len(ts)-1].Round(time.Millisecond))
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
