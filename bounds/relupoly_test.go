package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// inHull reports whether q lies in the convex hull of pts, up to tol in
// each coordinate (a brute-force test: q is in a triangle of pts).
func inHull(pts [][2]float64, q [2]float64, tolA, tolD float64) bool {
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			for k := j + 1; k < len(pts); k++ {
				if inTriangle(pts[i], pts[j], pts[k], q, tolA, tolD) {
					return true
				}
			}
		}
	}
	return false
}

// inTriangle reports whether q is in the triangle p0 p1 p2 grown by tol.
func inTriangle(p0, p1, p2, q [2]float64, tolA, tolD float64) bool {
	for _, dq := range [][2]float64{{0, 0}, {tolA, 0}, {-tolA, 0}, {0, tolD}, {0, -tolD}} {
		x := [2]float64{q[0] + dq[0], q[1] + dq[1]}
		a1, d1 := p1[0]-p0[0], p1[1]-p0[1]
		a2, d2 := p2[0]-p0[0], p2[1]-p0[1]
		det := a1*d2 - a2*d1
		if det == 0 {
			continue
		}
		ea, ed := x[0]-p0[0], x[1]-p0[1]
		al, be := (ea*d2-ed*a2)/det, (a1*ed-d1*ea)/det
		if al >= -1e-9 && be >= -1e-9 && al+be <= 1+1e-9 {
			return true
		}
	}
	return false
}

// TestFirstLayerPolygonContainsRange checks, for the first layer of random
// networks with 3-6 inputs and their float16 or perturbed copies, that the
// image (a, d) of every corner of the input box (the vertices of the
// zonotope of (a, d)) lies in the polygon's hull, and that the per-row
// planes over the polygon are above h at those images and at random inputs.
func TestFirstLayerPolygonContainsRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 4))
	relu := nn.Activation{Kind: nn.ReLU}
	clipped := 0
	for trial := range 40 {
		n := 3 + rng.IntN(4)
		f1 := boundstest.Network(rng, []int{n, 8, 2}, 0.5+rng.Float64(), relu)
		f2 := boundstest.Float16(f1)
		if trial%2 == 1 {
			f2 = boundstest.Perturb(rng, f1, 0.01)
		}
		box := randomBox(rng, n)
		x := boxIntervals(box)
		l1, l2 := f1.Layers[0], f2.Layers[0]
		dl := newLayerDiff(l1, l2, nil, nil)
		pre1 := affine(l1, x, nil)
		dd := dl.apply(l2.W.RawMatrix(), make([]Interval, n), x)
		for i := range pre1 {
			pts := firstLayerPolygon(i, pre1[i], dd[i], l1, dl, x)
			if pts == nil {
				continue
			}
			for _, c := range [][2]float64{{pre1[i].Lo, dd[i].Lo}, {pre1[i].Lo, dd[i].Hi}, {pre1[i].Hi, dd[i].Lo}, {pre1[i].Hi, dd[i].Hi}} {
				if !inHull(pts, c, 0, 0) {
					clipped++ // a corner of the box is cut off
					break
				}
			}
			lo, hi := relax(reluAct, pre1[i].Lo, pre1[i].Hi)
			p := newPairNeuronOn(i, pre1[i], dd[i], lo, hi, plane{0, 0, math.Min(dd[i].Lo, 0)}, plane{0, 0, math.Max(dd[i].Hi, 0)}, pts)
			tolA, tolD := 1e-9*pre1[i].Mag(), 1e-9*dd[i].Mag()
			var planes []plane
			var coef [][2]float64
			if p != nil {
				for range 4 {
					lz, ld := rng.NormFloat64(), rng.NormFloat64()
					if pl, ok := p.best(lz, ld); ok {
						planes, coef = append(planes, pl), append(coef, [2]float64{lz, ld})
					}
				}
			}
			check := func(xs []float64) {
				a, d := l1.B[i], l2.B[i]-l1.B[i]
				for j, v := range xs {
					a += l1.W.At(i, j) * v
					d += (l2.W.At(i, j) - l1.W.At(i, j)) * v
				}
				if !inHull(pts, [2]float64{a, d}, tolA, tolD) {
					t.Fatalf("trial %d neuron %d: (a, d) = (%g, %g) at x = %v outside the polygon %v", trial, i, a, d, xs, pts)
				}
				for k, pl := range planes {
					if h := pairH(coef[k][0], coef[k][1], a, d); pl.at(a, d) < h-1e-12*(1+math.Abs(h)) {
						t.Fatalf("trial %d neuron %d: plane %+v below h = %g at (%g, %g)", trial, i, pl, h, a, d)
					}
				}
			}
			for c := range 1 << n {
				xs := make([]float64, n)
				for j := range xs {
					xs[j] = box.Lo[j]
					if c>>j&1 == 1 {
						xs[j] = box.Hi[j]
					}
				}
				check(xs)
			}
			for range 200 {
				check(boundstest.Uniform(rng, box.Lo, box.Hi))
			}
		}
	}
	if clipped < 20 {
		t.Errorf("only %d polygons cut a corner off the box", clipped)
	}
	t.Logf("%d polygons cut a corner off the box", clipped)
}

// TestJointPolygonsContainRange checks end to end, for random ReLU pairs
// of 2-4 inputs and 2-3 hidden layers with the same input, that at every
// layer the polygon of every neuron relaxed per row holds (xi1, xi2 - xi1)
// at every corner of the input box and at random inputs.
func TestJointPolygonsContainRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 5))
	relu := nn.Activation{Kind: nn.ReLU}
	deep := 0 // polygons below the first layer
	for trial := range 30 {
		n := 2 + rng.IntN(3)
		sizes := []int{n, 6 + rng.IntN(5), 6 + rng.IntN(5), 2}
		if trial%2 == 1 {
			sizes = append(sizes[:3], 5, 2)
		}
		f1 := boundstest.Network(rng, sizes, 0.5+rng.Float64(), relu)
		f2 := boundstest.Float16(f1)
		if trial%3 == 2 {
			f2 = boundstest.Perturb(rng, f1, 0.005)
		}
		in := spec.Inputs{Box: randomBox(rng, n)}
		pb, err := Pair(f1, f2, in, Options{Method: MethodSymbolic})
		if err != nil {
			t.Fatal(err)
		}
		var xs [][]float64
		for c := range 1 << n {
			x := make([]float64, n)
			for j := range x {
				x[j] = in.Box.Lo[j]
				if c>>j&1 == 1 {
					x[j] = in.Box.Hi[j]
				}
			}
			xs = append(xs, x)
		}
		for range 300 {
			xs = append(xs, boundstest.Uniform(rng, in.Box.Lo, in.Box.Hi))
		}
		for k, pairs := range pb.prop.jointPairs {
			for _, p := range pairs {
				if !p.poly {
					continue
				}
				if k > 0 {
					deep++
				}
				pts := make([][2]float64, len(p.a))
				for v := range pts {
					pts[v] = [2]float64{p.a[v], p.d[v]}
				}
				for _, x := range xs {
					pre1, _ := boundstest.Trace(f1, x)
					pre2, _ := boundstest.Trace(f2, x)
					q := [2]float64{pre1[k][p.i], pre2[k][p.i] - pre1[k][p.i]}
					if !inHull(pts, q, 1e-9*p.pre1.Mag(), 1e-9*p.dd.Mag()) {
						t.Fatalf("trial %d layer %d neuron %d: (a, d) = %v at x = %v outside the polygon %v", trial, k, p.i, q, x, pts)
					}
				}
			}
		}
	}
	if deep < 20 {
		t.Errorf("only %d polygons below the first layer", deep)
	}
	t.Logf("%d polygons below the first layer", deep)
}
