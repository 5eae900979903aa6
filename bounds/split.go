package bounds

import (
	"context"
	"runtime"

	"github.com/nnbound/nnbound/internal/parallel"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Input splitting.
//
// Bounds of a union are the hulls of the bounds of its parts, and bounds
// computed on a small box are tighter (fewer neurons straddle a kink, and
// the relaxations of those that do are closer). With Options.Split = P > 1
// the box is cut into P boxes by bisection: P - 1 times, the piece with the
// largest influence width_i * |W_{:,i}|_1 (first-layer weights, both
// networks) on one coordinate i is halved along it. The pieces share their
// faces, and their union is the box exactly.

// splitBox returns the pieces of box for the networks fs.
func splitBox(box spec.Box, parts int, fs ...*nn.Network) []spec.Box {
	n := box.Dim()
	weight := make([]float64, n)
	for _, f := range fs {
		f.Layers[0].AddAbsColumnSums(weight)
	}
	// influence returns the coordinate of b to halve and its influence.
	influence := func(b spec.Box) (int, float64) {
		best, arg := -1.0, 0
		for i := range n {
			mid := b.Lo[i]/2 + b.Hi[i]/2
			if !(b.Lo[i] < mid && mid < b.Hi[i]) { // too narrow to halve
				continue
			}
			if v := (b.Hi[i] - b.Lo[i]) * weight[i]; v > best {
				best, arg = v, i
			}
		}
		return arg, best
	}
	pieces := []spec.Box{box}
	for len(pieces) < parts {
		bi, bd, bv := -1, 0, 0.0
		for p, b := range pieces {
			if d, v := influence(b); v > bv {
				bi, bd, bv = p, d, v
			}
		}
		if bi < 0 {
			break // nothing left to halve
		}
		b := pieces[bi]
		mid := b.Lo[bd]/2 + b.Hi[bd]/2
		lo := spec.Box{Lo: b.Lo, Hi: append([]float64(nil), b.Hi...)}
		hi := spec.Box{Lo: append([]float64(nil), b.Lo...), Hi: b.Hi}
		lo.Hi[bd], hi.Lo[bd] = mid, mid
		pieces[bi] = lo
		pieces = append(pieces, hi)
	}
	return pieces
}

// hullNets returns the bounds of the union of the sets bounded by nets
// (each of the same network), over the input box in.
func hullNets(in []Interval, nets []*Net) *Net {
	out := &Net{In: in, Pre: hullLayers(nets, func(n *Net) [][]Interval { return n.Pre }),
		Post: hullLayers(nets, func(n *Net) [][]Interval { return n.Post })}
	return out
}

// hullLayers returns the elementwise hull of field(x) over xs (a nil layer
// stays nil).
func hullLayers[T any](xs []T, field func(T) [][]Interval) [][]Interval {
	first := field(xs[0])
	out := make([][]Interval, len(first))
	for k, layer := range first {
		if layer == nil {
			continue
		}
		out[k] = append([]Interval(nil), layer...)
		for _, x := range xs[1:] {
			hullInto(out[k], field(x)[k])
		}
	}
	return out
}

// hullInto replaces each a[i] by its hull with b[i].
func hullInto(a, b []Interval) {
	for i := range a {
		a[i] = a[i].Hull(b[i])
	}
}

// singleSplit returns the bounds of f on box as the hull of its bounds on
// the pieces of the box, intersected with those on the whole box (bounds
// on a part are not always inside those on the whole: the relaxations
// differ), or ctx's error once ctx is done (singleNet).
func singleSplit(ctx context.Context, m lowered, box spec.Box, opts Options) (*Net, error) {
	var nets []*Net
	for _, b := range splitBox(box, opts.Split, m.f) {
		n, err := singleNet(ctx, m, b, opts)
		if err != nil {
			return nil, err
		}
		nets = append(nets, n)
	}
	out := hullNets(boxIntervals(box), nets)
	whole, err := singleNet(ctx, m, box, opts)
	if err != nil {
		return nil, err
	}
	intersectNets(out, whole)
	return out, nil
}

// intersectNets intersects the bounds of a with those of b, in place.
func intersectNets(a, b *Net) {
	for k := range a.Pre {
		intersectAll(a.Pre[k], b.Pre[k])
		intersectAll(a.Post[k], b.Post[k])
	}
}

// pairSplit returns the bounds of f1, f2 on in as the hulls of their
// bounds on the pieces of the box (spec.SameInput and spec.QuantisedInput pairings),
// intersected with those on the whole box, unless ctx is done first
// (propagatePair).
//
// The pieces and the whole box are bounded in parallel, on up to
// GOMAXPROCS goroutines; each is a propagation of its own, so the bounds
// do not depend on the scheduling.
func pairSplit(ctx context.Context, m1, m2 lowered, in spec.Inputs, opts Options) (*PairBounds, error) {
	boxes := splitBox(in.Box, opts.Split, m1.f, m2.f)
	pieces := make([]*PairBounds, len(boxes))
	errs := make([]error, len(boxes)+1)
	var whole *PairBounds
	parallel.For(context.Background(), len(boxes)+1, runtime.GOMAXPROCS(0), func(i int) {
		if i == 0 { // the whole box first: it has the most unstable neurons
			whole, errs[0] = propagatePair(ctx, m1, m2, in, opts)
			return
		}
		sub := in
		sub.Box = boxes[i-1]
		pieces[i-1], errs[i] = propagatePair(ctx, m1, m2, sub, opts)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	x1, x2, _ := inputBoxes(in)
	pb := &PairBounds{
		Net1:     hullNets(x1, mapSlice(pieces, func(p *PairBounds) *Net { return p.Net1 })),
		Net2:     hullNets(x2, mapSlice(pieces, func(p *PairBounds) *Net { return p.Net2 })),
		DiffIn:   append([]Interval(nil), pieces[0].DiffIn...),
		DiffPre:  hullLayers(pieces, func(p *PairBounds) [][]Interval { return p.DiffPre }),
		DiffPost: hullLayers(pieces, func(p *PairBounds) [][]Interval { return p.DiffPost }),
		Output:   append([]Interval(nil), pieces[0].Output...),
		pieces:   pieces,
	}
	for _, p := range pieces[1:] {
		hullInto(pb.DiffIn, p.DiffIn)
		hullInto(pb.Output, p.Output)
	}
	pb.whole = whole
	intersectNets(pb.Net1, whole.Net1)
	intersectNets(pb.Net2, whole.Net2)
	intersectAll(pb.DiffIn, whole.DiffIn)
	for k := range pb.DiffPre {
		if pb.DiffPre[k] != nil {
			intersectAll(pb.DiffPre[k], whole.DiffPre[k])
			intersectAll(pb.DiffPost[k], whole.DiffPost[k])
		}
	}
	intersectAll(pb.Output, whole.Output)
	return pb, nil
}

// mapSlice returns f applied to every element of s.
func mapSlice[S, T any](s []S, f func(S) T) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}
