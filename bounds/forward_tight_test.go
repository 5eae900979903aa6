package bounds

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/spec"
)

// TestForwardDiffTightness compares the width of ForwardDiff's output
// differences with Pair's (MethodSymbolic) on small boxes, where forward
// propagation loses little: per variant of forwardPair the median ratio
// is at most 1.05 and no ratio exceeds 2 (measured: medians 0.52-1, the
// largest 1.27).
func TestForwardDiffTightness(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 0))
	var ratios [6][]float64
	for trial := range 120 {
		f, g := forwardPair(rng, trial)
		fd, err := NewForwardDiff(f, g)
		if err != nil {
			t.Fatal(err)
		}
		box := forwardBox(rng, f.InputSize(), 0.01)
		out, err := fd.Bound(box)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := Pair(f, g, spec.Inputs{Box: box, Pairing: spec.SameInput}, Options{Method: MethodSymbolic})
		if err != nil {
			t.Fatal(err)
		}
		for k := range out {
			r := out[k].Width() / max(pb.Output[k].Width(), 1e-300)
			if r > 2 {
				t.Errorf("trial %d output %d: forward %v, pair %v", trial, k, out[k], pb.Output[k])
			}
			ratios[trial%6] = append(ratios[trial%6], r)
		}
	}
	for v, r := range ratios {
		slices.Sort(r)
		t.Logf("variant %d: forward/pair width median %.3g, 90th percentile %.3g, largest %.3g", v, r[len(r)/2], r[len(r)*9/10], r[len(r)-1])
		if r[len(r)/2] > 1.05 {
			t.Errorf("variant %d: median ratio %.3g, want <= 1.05", v, r[len(r)/2])
		}
	}
}

// TestForwardDiffACASXu checks ForwardDiff on every seventh ACAS Xu
// float16 instance of properties 3 and 4 against the differences the
// data's search attained, and logs it next to NeuroDiff's first pass and
// Pair's symbolic margin (on these large boxes: 2 to 50 times below
// NeuroDiff's bound, 1.3 to 2000 times above Pair's).
func TestForwardDiffACASXu(t *testing.T) {
	insts := everyNth(boundstest.ACASInstances(t), 7)
	for _, inst := range insts {
		f, g := inst.Networks(t)
		fd, err := NewForwardDiff(f, g)
		if err != nil {
			t.Fatal(err)
		}
		box := spec.Box{Lo: inst.Lo, Hi: inst.Hi}
		out, err := fd.Bound(box)
		if err != nil {
			t.Fatal(err)
		}
		o := out[inst.Target]
		if o.Lo > inst.AttainedLo || o.Hi < inst.AttainedHi {
			t.Fatalf("prop %s net %s: bound %v misses the attained range [%v, %v]", inst.Prop, inst.Net, o, inst.AttainedLo, inst.AttainedHi)
		}
		pb, err := Pair(f, g, spec.Inputs{Box: box, Pairing: spec.SameInput}, Options{Method: MethodSymbolic})
		if err != nil {
			t.Fatal(err)
		}
		c := make([]float64, f.OutputSize())
		c[inst.Target] = 1
		m, err := pb.Margin(c)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("prop %s net %s: forward %.4g, pair symbolic %.4g, NeuroDiff %.4g", inst.Prop, inst.Net, o.Mag(), m.Mag(), inst.NeuroDiff)
	}
}

// BenchmarkForwardDiff times Bound on an ACAS Xu float16 pair (5 inputs,
// 6 hidden layers of 50) on a property 3 box and on a box 1/64 as wide.
func BenchmarkForwardDiff(b *testing.B) {
	inst := boundstest.ACASInstances(b)[0]
	f, g := inst.Networks(b)
	fd, err := NewForwardDiff(f, g)
	if err != nil {
		b.Fatal(err)
	}
	small := spec.Box{Lo: slices.Clone(inst.Lo), Hi: slices.Clone(inst.Hi)}
	for i := range small.Lo {
		small.Hi[i] = small.Lo[i] + (inst.Hi[i]-inst.Lo[i])/64
	}
	for _, c := range []struct {
		name string
		box  spec.Box
	}{{"property", spec.Box{Lo: inst.Lo, Hi: inst.Hi}}, {"small", small}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := fd.Bound(c.box); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
