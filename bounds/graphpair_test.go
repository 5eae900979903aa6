package bounds

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// graphPairings are the input sets of the pair tests, on box (and, for a
// saturating input quantiser, on box scaled by 2, part of it beyond the
// quantiser's limit 1.875).
func graphPairings(box spec.Box) []spec.Inputs {
	wide := spec.Box{Lo: make([]float64, box.Dim()), Hi: make([]float64, box.Dim())}
	for i := range wide.Lo {
		wide.Lo[i], wide.Hi[i] = 2*box.Lo[i], 2*box.Hi[i]
	}
	return []spec.Inputs{
		{Box: box, Pairing: spec.SameInput},
		{Box: box, Pairing: spec.Independent},
		{Box: box, Pairing: spec.QuantisedInput, Quant: quantise.Format{FracBits: 4, Rounding: quantise.Nearest}},
		{Box: wide, Pairing: spec.QuantisedInput, Quant: quantise.Format{IntBits: 1, FracBits: 3, Saturate: true}},
	}
}

// pairInside returns an error naming the values v1 of g1 and v2 of g2
// (at paired inputs) outside their enclosures in pb, the output
// differences outside pb.Diff, and with GraphOptions.Planar its margins
// and 2-norm (planarInside).
func pairInside(pb *GraphPairBounds, v1, v2 [][]float64) error {
	err := errors.Join(insideAll(pb.Net1, v1), insideAll(pb.Net2, v2))
	y1, y2 := v1[len(v1)-1], v2[len(v2)-1]
	for j := range y1 {
		if d := y2[j] - y1[j]; !pb.Diff[j].Contains(d) {
			err = errors.Join(err, fmt.Errorf("output %d: difference %v outside %v", j, d, pb.Diff[j]))
		}
	}
	if pb.planes != nil {
		err = errors.Join(err, planarInside(pb, y1, y2))
	}
	return err
}

// TestGraphPairSound samples pairs of graphs (a graph and a perturbed
// copy, or two unrelated graphs) under every pairing and checks each
// output difference and every value of both graphs against its enclosure.
func TestGraphPairSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	for trial := range 12 {
		g1 := randGraph(rng)
		g2 := perturbed(rng, g1, 0.01)
		switch trial % 4 {
		case 2: // other quantisers
			for _, n := range g2.Nodes {
				if q, ok := n.Op.(*nn.Quantise); ok {
					q.Q.Scale[0] *= 1.07
					q.Q.Zero[0] = min(q.Q.Zero[0]+1, q.Q.Hi)
				}
			}
		case 3:
			g2 = randGraph(rng)
		}
		box := randBox(rng, g1.InputSize(), []float64{0.002, 0.05, 0.4}[trial%3])
		for _, in := range graphPairings(box) {
			opts := graphMethods[trial%len(graphMethods)]
			opts.Combined = trial%2 == 1
			pb, err := GraphPair(g1, g2, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := pairSamplesInside(rng, g1, g2, in, pb); err != nil {
				t.Fatalf("trial %d, %v: %v", trial, in.Pairing, err)
			}
			if n2, ni := pb.Norm2(), pb.NormInf(); !(ni <= n2) {
				t.Errorf("trial %d: inf-norm bound %g above the 2-norm bound %g", trial, ni, n2)
			}
		}
	}
}

// TestGraphDiffTighter checks that bounding a perturbed copy through the
// differences node by node is tighter than through the combined graph
// (both are sampled for soundness in TestGraphPairSound).
func TestGraphDiffTighter(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	g1 := residualCNN(rng, 1, 8, 8, []int{4, 4})
	g2 := perturbed(rng, g1, 1e-3)
	in := spec.Inputs{Box: randBox(rng, g1.InputSize(), 0.01)}
	opts := GraphOptions{Intermediate: IntermediateBacksub, Batch: 64}
	diff, err := GraphPair(g1, g2, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Combined = true
	comb, err := GraphPair(g1, g2, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d, c := diff.Norm2(), comb.Norm2(); !(d < c/2) {
		t.Errorf("2-norm bound through the differences %g, through the combined graph %g", d, c)
	}
}

// TestGraphPairErrors checks that bad input is an error naming it.
func TestGraphPairErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	g := randGraph(rng)
	box := randBox(rng, g.InputSize(), 0.1)
	other := residualCNN(rng, 2, 4, 4, []int{2})
	cases := []struct {
		name   string
		g1, g2 *nn.Graph
		in     spec.Inputs
		want   error
	}{
		{"outputs differ", g, other, spec.Inputs{Box: box}, nn.ErrDimension},
		{"box of another size", g, g, spec.Inputs{Box: randBox(rng, 5, 0.1)}, nn.ErrDimension},
		{"bad pairing", g, g, spec.Inputs{Box: box, Pairing: 7}, spec.ErrInputs},
	}
	for _, c := range cases {
		if _, err := GraphPair(c.g1, c.g2, c.in, DefaultGraphOptions()); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

// TestGraphPairRelaxSound checks the planes of the pair nodes (the
// difference of two activations, of two quantisers, of two max pools) at
// random points of random boxes of (z, d).
func TestGraphPairRelaxSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	q1 := &nn.Quantiser{Scale: []float64{0.1}, Zero: []int64{3}, Lo: -8, Hi: 17}
	q2 := &nn.Quantiser{Scale: []float64{0.11}, Zero: []int64{2}, Lo: -8, Hi: 17}
	wins := [][]int{{0, 1, 2}, {1, 2}, {2}, {0, 2}}
	for range 300 {
		a1 := randActivation(rng)
		a2 := a1
		if rng.IntN(3) == 0 {
			a2 = randActivation(rng)
		}
		ops := []nn.Op{pairAct{a1, a2}, pairQuant{q1, q2}, pairQuant{q1, q1}, pairQuant{nil, q2}, pairQuant{q1, nil}, pairMax{wins}}
		z, d := make([]Interval, 3), make([]Interval, 3)
		for i := range z {
			c, r := 2*rng.NormFloat64(), 3*rng.Float64()*rng.Float64()
			z[i] = Interval{c - r, c + r}
			dc, dr := 0.1*rng.NormFloat64(), 0.2*rng.Float64()*rng.Float64()
			d[i] = Interval{dc - dr, dc + dr}
		}
		// A third input bounds z + d tighter than the sum (graphalign.go).
		y := addAll(z, d)
		for i := range y {
			if rng.IntN(2) == 0 {
				c := y[i].Lo + rng.Float64()*(y[i].Hi-y[i].Lo)
				y[i] = Interval{c - rng.Float64()*(c-y[i].Lo), c + rng.Float64()*(y[i].Hi-c)}
			}
		}
		for k, op := range ops {
			ins := [][]Interval{z, d}
			if k%2 == 0 && op.Describe() != "diff maxpool" {
				ins = append(ins, y)
			}
			rel := nodeRelax(op, ins)
			img := nodeImage(op, nil, ins)
			for range 200 {
				zs, ds := make([]float64, 3), make([]float64, 3)
				for i := range zs {
					zs[i] = z[i].Lo + rng.Float64()*(z[i].Hi-z[i].Lo)
					ds[i] = d[i].Lo + rng.Float64()*(d[i].Hi-d[i].Lo)
					if rng.IntN(4) == 0 {
						zs[i], ds[i] = z[i].Lo, d[i].Hi // a corner
					}
					if len(ins) > 2 && !y[i].Contains(zs[i]+ds[i]) {
						ds[i] = min(max(y[i].Lo-zs[i], d[i].Lo), d[i].Hi) // into y, or outside the test
						if !y[i].Contains(zs[i] + ds[i]) {
							zs[i] = min(max(y[i].Lo-ds[i], z[i].Lo), z[i].Hi)
						}
					}
				}
				if len(ins) > 2 && !insideSums(zs, ds, y) {
					continue
				}
				y := make([]float64, len(img))
				op.Eval(y, [][]float64{zs, ds})
				for o, v := range y {
					jl, ju := at(rel.lowAt, o), at(rel.upAt, o)
					lo := rel.low[o].A*zs[jl] + rel.lowB[o]*ds[jl] + rel.low[o].C
					hi := rel.up[o].A*zs[ju] + rel.upB[o]*ds[ju] + rel.up[o].C
					// Eval rounds z + d: allow for it.
					if v < max(lo, img[o].Lo)-1e-12 || v > min(hi, img[o].Hi)+1e-12 {
						t.Fatalf("%s at z %v, d %v: output %d is %v, planes give [%v, %v], image %v", op.Describe(), zs, ds, o, v, lo, hi, img[o])
					}
				}
			}
		}
	}
}

// insideSums reports whether z_i + d_i lies in y_i for every i.
func insideSums(z, d []float64, y []Interval) bool {
	for i := range z {
		if !y[i].Contains(z[i] + d[i]) {
			return false
		}
	}
	return true
}

// pairSamplesInside checks the values of both graphs and the output
// difference at 40 sampled input pairs of in against the bounds pb.
func pairSamplesInside(rng *rand.Rand, g1, g2 *nn.Graph, in spec.Inputs, pb *GraphPairBounds) error {
	for _, x1 := range boxSamples(rng, in.Box, 40) {
		x2 := in.X2(x1)
		if in.Pairing == spec.Independent {
			x2 = boxSamples(rng, in.Box, 1)[2]
		}
		v1, _ := g1.EvalAll(x1)
		v2, _ := g2.EvalAll(x2)
		if err := pairInside(pb, v1, v2); err != nil {
			return err
		}
	}
	return nil
}

// TestGraphPairPlanarSound checks GraphOptions.Planar on sampled pairs
// (pairInside checks the margins and the 2-norm), and that Norm2 is never
// above the norm of Diff.
func TestGraphPairPlanarSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 12))
	for trial := range 8 {
		g1 := randGraph(rng)
		g2 := perturbed(rng, g1, 0.02)
		if trial%4 == 3 {
			g2 = randGraph(rng)
		}
		box := randBox(rng, g1.InputSize(), []float64{0.002, 0.05, 0.4}[trial%3])
		for _, in := range graphPairings(box) {
			opts := DefaultGraphOptions()
			opts.Planar = 2 + 2*(trial%3)
			opts.Combined = trial%2 == 1
			pb, err := GraphPair(g1, g2, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			if pb.planes == nil {
				t.Fatalf("trial %d: no planes", trial)
			}
			if err := pairSamplesInside(rng, g1, g2, in, pb); err != nil {
				t.Fatalf("trial %d, %v: %v", trial, in.Pairing, err)
			}
			if norm := pb.Norm2(); !(norm <= norm2Up(pb.Diff)) {
				t.Errorf("trial %d: Norm2 %g above the enclosures' norm %g", trial, norm, norm2Up(pb.Diff))
			}
		}
	}
}

// planarInside returns an error naming the margins of the directions
// node of pb (GraphOptions.Planar) that miss the output difference
// y2 - y1, or its 2-norm above pb.Norm2.
func planarInside(pb *GraphPairBounds, y1, y2 []float64) error {
	last := pb.Combined.Values[len(pb.Combined.Values)-1]
	n := len(y1)
	k := (len(last) - n) / (n / 2)
	var err error
	s := 0.0
	for j := range y1 {
		s += (y2[j] - y1[j]) * (y2[j] - y1[j])
	}
	if norm := pb.Norm2(); math.Sqrt(s) > norm {
		err = fmt.Errorf("||d||_2 = %g above %g", math.Sqrt(s), norm)
	}
	for p := range n / 2 {
		for u := range k {
			th := math.Pi * float64(u) / float64(k)
			c := math.Cos(th)*(y2[2*p]-y1[2*p]) + math.Sin(th)*(y2[2*p+1]-y1[2*p+1])
			if m := last[n+p*k+u]; !m.Contains(c) {
				err = errors.Join(err, fmt.Errorf("plane %d direction %d: %g outside %v", p, u, c, m))
			}
		}
	}
	return err
}
