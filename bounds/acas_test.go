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
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
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
			{Method: MethodOptimised, Optimise: OptimiseSettings{Differences: true}},
			{Method: MethodSymbolic, Split: 16}, {Method: MethodOptimised, Split: 4}, {Method: MethodOptimised, Split: 16},
			{Method: MethodOptimised, Split: 64}}
		for _, p := range []string{"3", "4"} {
			var sum []float64
			n := 0
			for _, inst := range insts {
				if inst.Prop != p {
					continue
				}
				f, _ := inst.Networks(t)
				for k, v := range sampledUnstable(f, inst.Lo, inst.Hi, 20000) {
					if k >= len(sum) {
						sum = append(sum, 0)
					}
					sum[k] += float64(v)
				}
				n++
			}
			var per []string
			for _, v := range sum[:len(sum)-1] {
				per = append(per, fmt.Sprintf("%.1f", v/float64(n)))
			}
			t.Logf("sampled property %s: neurons seen taking both signs (20000 points and the corners), mean per layer %s", p, strings.Join(per, " "))
		}
	}
	table := os.Getenv("NNBOUND_BOUNDS_TABLE") != ""
	for _, opts := range methods {
		stats := map[string]*acasStats{}
		rng := rand.New(rand.NewPCG(9, 0))
		for _, inst := range insts {
			f, g := inst.Networks(t)
			in := spec.Inputs{Box: spec.Box{Lo: inst.Lo, Hi: inst.Hi}, Pairing: spec.SameInput}
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
			u1, u2 := mustUnstable(t, pb.Net1, f), mustUnstable(t, pb.Net2, g)
			st.add(ours/inst.NeuroDiff, ours/max(-inst.AttainedLo, inst.AttainedHi), el, u1)
			if table {
				t.Logf("%s prop %s net %s: ours %.4g neurodiff %.4g ratio %.4f attained %.3g time %v unstable f %v f' %v",
					optionsLabel(opts), inst.Prop, inst.Net, ours, inst.NeuroDiff, ours/inst.NeuroDiff, max(-inst.AttainedLo, inst.AttainedHi),
					el.Round(time.Millisecond), u1, u2)
			}
		}
		for _, p := range []string{"3", "4"} {
			if st := stats[p]; st != nil {
				t.Logf("%s property %s: %s", optionsLabel(opts), p, st)
			}
		}
	}
}

// acasStats summarises a method's results on the instances of a property.
type acasStats struct {
	ratios   []float64 // ours / NeuroDiff
	attained []float64 // ours / the largest attained difference
	times    []time.Duration
	unstable [][]int // per instance, per layer (f only)
}

func (s *acasStats) add(ratio, attained float64, el time.Duration, u []int) {
	s.ratios = append(s.ratios, ratio)
	s.attained = append(s.attained, attained)
	s.times = append(s.times, el)
	s.unstable = append(s.unstable, u)
}

// String reports the median, min and max ratio to NeuroDiff, the median
// ratio to the largest attained difference, the mean
// unstable neurons per hidden layer, the median and range of their total,
// and the median and largest time.
func (s *acasStats) String() string {
	r := slices.Clone(s.ratios)
	slices.Sort(r)
	a := slices.Clone(s.attained)
	slices.Sort(a)
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
	return fmt.Sprintf("%d instances, ratio ours/NeuroDiff median %.4f (min %.4f, max %.4f), ours/attained median %.3g; unstable per layer %s, total median %.0f (range %.0f-%.0f); time median %v, max %v",
		len(r), median(r), r[0], r[len(r)-1], median(a), strings.Join(per, " "), median(totals), totals[0], totals[len(totals)-1],
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

// sampledUnstable returns, per layer of f, the number of neurons whose
// pre-activation takes both signs at the corners of the box [lo, hi] or at
// n random points in it: a lower bound of the number really unstable.
func sampledUnstable(f *nn.Network, lo, hi []float64, n int) []int {
	rng := rand.New(rand.NewPCG(1, 2))
	seen := make([][][2]bool, len(f.Layers))
	for k := range seen {
		seen[k] = make([][2]bool, f.Layers[k].Out())
	}
	corners := 1 << len(lo)
	for s := range corners + n {
		x := boundstest.Uniform(rng, lo, hi)
		if s < corners {
			for i := range x {
				x[i] = lo[i]
				if s>>i&1 == 1 {
					x[i] = hi[i]
				}
			}
		}
		pre, _ := boundstest.Trace(f, x)
		for k, layer := range pre {
			for i, v := range layer {
				seen[k][i][0] = seen[k][i][0] || v < 0
				seen[k][i][1] = seen[k][i][1] || v > 0
			}
		}
	}
	out := make([]int, len(f.Layers))
	for k, layer := range seen {
		for _, s := range layer {
			if s[0] && s[1] {
				out[k]++
			}
		}
	}
	return out
}

// optionsLabel names the method, splitting and differences option of o.
func optionsLabel(o Options) string {
	s := fmt.Sprintf("%v split %d", o.Method, max(o.Split, 1))
	if o.Method == MethodOptimised && o.Optimise.Differences {
		s += " +differences"
	}
	return s
}

// BenchmarkPairACASXu times Pair and the target's margin on the first ACAS
// Xu float16 instance of property 3 with each method, and with the options
// of a node of verify's branch and bound (label "node": unstable neurons
// only, plain pairs, network 2 by difference, 5 optimiser steps of 0.5).
func BenchmarkPairACASXu(b *testing.B) {
	inst := boundstest.ACASInstances(b)[0]
	f, g := inst.Networks(b)
	in := spec.Inputs{Box: spec.Box{Lo: inst.Lo, Hi: inst.Hi}}
	c := make([]float64, f.OutputSize())
	c[inst.Target] = 1
	node := Options{Method: MethodOptimised, Heuristics: Heuristics{UnstableOnly: true, PlainPairs: true, SecondByDifference: true},
		Optimise: OptimiseSettings{Iterations: 5, Step: 0.5}}
	for _, o := range []Options{{Method: MethodSymbolic}, DefaultOptions(), {Method: MethodOptimised, Split: 16}, node} {
		label := optionsLabel(o)
		if o.SecondByDifference {
			label = "node"
		}
		b.Run(strings.ReplaceAll(label, " ", "-"), func(b *testing.B) {
			for b.Loop() {
				pb, err := Pair(f, g, in, o)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := pb.Margin(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
