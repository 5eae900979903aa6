package bounds

import (
	"errors"
	"fmt"
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// ErrUnsupported reports a network that a method of this package does not
// handle (ForwardDiff: an activation other than identity or ReLU, or a
// quantiser); callers fall back to another method.
var ErrUnsupported = errors.New("unsupported network")

// ForwardDiff bounds g(x) - f(x) over a box of inputs x by forward
// propagation, as ReluDiff and NeuroDiff do: a cheap first stage before
// Pair's back-substitution in a branch and bound over the box.
//
// Every neuron of f and of g, and, for every layer where the widths agree,
// the difference delta = h_g - h_f of corresponding neurons, is an affine
// form in the inputs and in noise symbols shared by all of them (zono.go):
// the relaxation of a ReLU that may take both signs introduces one symbol,
// as NeuroDiff introduces symbolic variables, so affine maps lose nothing.
// Through a layer the difference of pre-activations is the narrower (per
// neuron, on the box) of
//
//	W_g delta + (W_g - W_f) h_f + (b_g - b_f),
//	xi_g - xi_f                                  (the two networks' forms),
//
// and through a pair of ReLUs, with d = xi_g - xi_f, the narrower of
//
//	h_g - h_f        (the two networks' relaxations, sharing symbols),
//	mu d + [a, b]    with  min(d, 0) <= delta <= max(d, 0)  always,
//	                       delta >= d where f is active, delta <= d where g is,
//
// so both stable active neurons pass d, both inactive give 0, and mixed
// ones a relaxation (NeuroDiff's case analysis). Pre-activation ranges are
// tightened by the other network's and the difference (ReluDiff). Every
// float64 operation is accounted for in the forms' radii, so the bounds
// hold for the exact real networks. Bound allocates nothing; its cost is
// O(layers * width^2 * symbols), the symbols being the inputs and one per
// relaxed ReLU.
//
// A ForwardDiff is made once per pair and reused; it is not safe for
// concurrent use (make one per goroutine).
type ForwardDiff struct {
	// MaxSymbols, if positive, makes Bound give up, returning unbounded
	// intervals, once more than MaxSymbols ReLUs have been relaxed: on
	// large boxes, where the bound is loose anyway, the cost grows with
	// their number.
	MaxSymbols int

	f, g    *nn.Network
	n0, cap int          // inputs; most symbols one Bound can use
	used    int          // symbols in use
	diffs   []*layerDiff // g - f per layer where both shapes agree, else nil
	delta   []bool       // per layer: the output widths agree
	// in, pre and post hold the forms of f, g and delta (indices 0, 1, 2)
	// at the input of the current layer, its pre-activations and outputs.
	in, pre, post [3]zset
	// zlo, zhi are the pre-activation ranges of the current layer of f
	// and g.
	zlo, zhi   [2][]float64
	cand, best zform
	dform      []float64 // room for a copy of a difference form
	coef       []float64
	out        []Interval
}

// NewForwardDiff returns the forward bound of the pair f, g: dense chains
// with the same input and output sizes, of any widths, whose activations
// are identity or ReLU and which have no quantisers (else an error
// wrapping ErrUnsupported).
func NewForwardDiff(f, g *nn.Network) (*ForwardDiff, error) {
	for i, n := range []*nn.Network{f, g} {
		if n == nil {
			return nil, fmt.Errorf("bounds: forward: network %d is nil: %w", i+1, nn.ErrDimension)
		}
		if err := n.Validate(); err != nil {
			return nil, fmt.Errorf("bounds: forward: network %d: %w", i+1, err)
		}
		if n.Quantised() {
			return nil, fmt.Errorf("bounds: forward: network %d has quantisers: %w", i+1, ErrUnsupported)
		}
		if n.Structured() {
			return nil, fmt.Errorf("bounds: forward: network %d: %w: %w", i+1, nn.ErrStructured, ErrUnsupported)
		}
		for k, l := range n.Layers {
			if l.Act.Kind != nn.ReLU && l.Act.Kind != nn.Identity {
				return nil, fmt.Errorf("bounds: forward: network %d layer %d has activation %v: %w", i+1, k, l.Act.Kind, ErrUnsupported)
			}
		}
	}
	if f.InputSize() != g.InputSize() || f.OutputSize() != g.OutputSize() {
		return nil, fmt.Errorf("bounds: forward: networks are %d->%d and %d->%d: %w",
			f.InputSize(), f.OutputSize(), g.InputSize(), g.OutputSize(), nn.ErrDimension)
	}
	n0 := f.InputSize()
	fd := &ForwardDiff{f: f, g: g, n0: n0, out: make([]Interval, f.OutputSize()), coef: make([]float64, n0)}
	width, symbols := n0, n0
	depth := max(len(f.Layers), len(g.Layers))
	fd.diffs, fd.delta = make([]*layerDiff, depth), make([]bool, depth)
	for k := range depth {
		var lf, lg *nn.Layer
		if k < len(f.Layers) {
			lf = &f.Layers[k]
			width, symbols = max(width, lf.Out()), symbols+lf.Out()
		}
		if k < len(g.Layers) {
			lg = &g.Layers[k]
			width, symbols = max(width, lg.Out()), symbols+lg.Out()
		}
		if lf == nil || lg == nil || lf.Out() != lg.Out() {
			continue
		}
		fd.delta[k] = true
		symbols += lf.Out()
		if lf.In() == lg.In() {
			fd.diffs[k] = newLayerDiff(*lf, *lg, nil, nil)
		}
	}
	fd.cap = symbols
	for i := range 3 {
		fd.in[i], fd.pre[i], fd.post[i] = newZset(width, fd.cap), newZset(width, fd.cap), newZset(width, fd.cap)
	}
	for i := range 2 {
		fd.zlo[i], fd.zhi[i] = make([]float64, width), make([]float64, width)
	}
	fd.cand.a, fd.best.a, fd.dform = make([]float64, fd.cap), make([]float64, fd.cap), make([]float64, fd.cap)
	return fd, nil
}

// Bound returns enclosures of g_k(x) - f_k(x) over x in box, one per
// output (unbounded when MaxSymbols is exceeded). The slice is owned by fd
// and overwritten by the next call. It returns an error for a box of the
// wrong dimension or an invalid one.
func (fd *ForwardDiff) Bound(box spec.Box) ([]Interval, error) {
	if box.Dim() != fd.n0 {
		return nil, fmt.Errorf("bounds: forward: box has %d coordinates, networks take %d: %w", box.Dim(), fd.n0, nn.ErrDimension)
	}
	if err := box.Validate(); err != nil {
		return nil, fmt.Errorf("bounds: forward: %w", err)
	}
	fd.setInput(box)
	if len(fd.f.Layers) != len(fd.g.Layers) {
		return fd.unequalDepths(), nil
	}
	hasDelta := true
	for k := range fd.f.Layers {
		lf, lg := &fd.f.Layers[k], &fd.g.Layers[k]
		fd.layer(0, lf)
		fd.layer(1, lg)
		if fd.delta[k] {
			fd.deltaPre(k, lf, lg, hasDelta)
			fd.crossRanges(lf.Out())
		}
		fd.activateLayer(0, lf)
		fd.activateLayer(1, lg)
		if fd.delta[k] {
			fd.deltaPost(lf.Act, lg.Act, lf.Out())
		}
		hasDelta = fd.delta[k]
		fd.in, fd.post = fd.post, fd.in
		if fd.givenUp() {
			return fd.out, nil
		}
	}
	for i := range fd.out {
		d := &fd.in[2]
		iv := Interval{fd.in[1].lo[i], fd.in[1].hi[i]}.Sub(Interval{fd.in[0].lo[i], fd.in[0].hi[i]})
		fd.out[i] = iv.Intersect(Interval{d.lo[i], d.hi[i]})
	}
	return fd.out, nil
}

// Coefficients returns the coefficients of x in the form of g_k - f_k found
// by the last Bound (a slice owned by fd): how much each input moves the
// difference, for choosing the coordinate to split.
func (fd *ForwardDiff) Coefficients(k int, box spec.Box) []float64 {
	row := fd.in[2].row(k, fd.cap)[:fd.n0]
	for j, a := range row {
		fd.coef[j] = 0
		if h := box.Hi[j]/2 - box.Lo[j]/2; h > 0 {
			fd.coef[j] = a / h
		}
	}
	return fd.coef
}

// givenUp reports whether more than MaxSymbols ReLUs were relaxed, and
// then sets every output's bound to the whole line.
func (fd *ForwardDiff) givenUp() bool {
	if fd.MaxSymbols <= 0 || fd.used-fd.n0 <= fd.MaxSymbols {
		return false
	}
	for i := range fd.out {
		fd.out[i] = Interval{math.Inf(-1), math.Inf(1)}
	}
	return true
}

// setInput sets the box and the forms of the input layer: x_j = mid_j +
// half_j sigma_j for both networks, 0 for their difference.
func (fd *ForwardDiff) setInput(box spec.Box) {
	fd.used = fd.n0
	for j := range fd.n0 {
		lo, hi := box.Lo[j], box.Hi[j]
		mid := lo/2 + hi/2
		half := max(outward.SubUp(hi, mid), outward.SubUp(mid, lo))
		fd.cand.zero(fd.n0)
		fd.cand.store(&fd.in[2], j, fd.cap)
		fd.cand.a[j], fd.cand.c = half, mid
		fd.cand.lo, fd.cand.hi, fd.cand.mag = lo, hi, outward.AddUp(math.Abs(mid), half)
		fd.cand.store(&fd.in[0], j, fd.cap)
		fd.cand.store(&fd.in[1], j, fd.cap)
	}
}

// unequalDepths bounds networks of different depths: each on its own,
// then the difference of their forms.
func (fd *ForwardDiff) unequalDepths() []Interval {
	nets := [2]*nn.Network{fd.f, fd.g}
	for i, n := range nets {
		src := fd.in[i]
		for _, l := range n.Layers {
			fd.in[i] = src
			fd.layer(i, &l)
			fd.ranges(i, l.Out())
			fd.activateLayer(i, &l)
			src, fd.post[i] = fd.post[i], src
		}
		fd.in[i] = src
	}
	if fd.givenUp() {
		return fd.out
	}
	for i := range fd.out {
		c := &fd.cand
		c.reset(fd.used)
		c.addScaled(1, &fd.in[1], i, fd.cap)
		c.addScaled(-1, &fd.in[0], i, fd.cap)
		c.finish()
		fd.out[i] = Interval{c.lo, c.hi}
	}
	return fd.out
}

// layer propagates network i's forms through the affine map of layer l,
// from fd.in[i] to fd.pre[i], and sets the ranges.
func (fd *ForwardDiff) layer(i int, l *nn.Layer) {
	w := l.W.RawMatrix()
	c := &fd.cand
	for r := range w.Rows {
		c.reset(fd.used)
		c.c, c.abs = l.B[r], math.Abs(l.B[r])
		for t, wt := range w.Data[r*w.Stride : r*w.Stride+w.Cols] {
			c.addScaled(wt, &fd.in[i], t, fd.cap)
		}
		c.finish()
		c.store(&fd.pre[i], r, fd.cap)
	}
	fd.ranges(i, w.Rows)
}

// ranges sets the pre-activation ranges of network i's neurons (width of
// them) from its own forms.
func (fd *ForwardDiff) ranges(i, width int) {
	p := &fd.pre[i]
	copy(fd.zlo[i][:width], p.lo[:width])
	copy(fd.zhi[i][:width], p.hi[:width])
}

// crossRanges tightens the pre-activation ranges of both networks by
// those of the other and of the difference d = xi_g - xi_f (ReluDiff):
// xi_g in xi_f + d, xi_f in xi_g - d.
func (fd *ForwardDiff) crossRanges(width int) {
	d := &fd.pre[2]
	for r := range width {
		lf, uf, lg, ug := fd.zlo[0][r], fd.zhi[0][r], fd.zlo[1][r], fd.zhi[1][r]
		dl, du := d.lo[r], d.hi[r]
		fd.zlo[0][r], fd.zhi[0][r] = max(lf, outward.SubDown(lg, du)), min(uf, outward.SubUp(ug, dl))
		fd.zlo[1][r], fd.zhi[1][r] = max(lg, outward.AddDown(lf, dl)), min(ug, outward.AddUp(uf, du))
	}
}

// activateLayer sets the output forms of network i's layer l: the
// pre-activation form where the neuron is the identity or its range is
// nonnegative, 0 where it is nonpositive, else the ReLU's relaxation
//
//	relu(z) = lambda z + [0, b],   lambda = u / (u - l) rounded up,
//
// with a new symbol for [0, b].
func (fd *ForwardDiff) activateLayer(i int, l *nn.Layer) {
	c, b := &fd.cand, &fd.best
	for r := range l.Out() {
		lo, hi := fd.zlo[i][r], fd.zhi[i][r]
		switch {
		case l.Act.Kind == nn.Identity || lo >= 0:
			c.load(&fd.pre[i], r, fd.cap, fd.used)
			c.store(&fd.post[i], r, fd.cap)
		case hi <= 0:
			c.zero(fd.used)
			c.store(&fd.post[i], r, fd.cap)
		default:
			c.load(&fd.pre[i], r, fd.cap, fd.used)
			lambda, up := reluEnclosure(lo, hi)
			b.parallel(c, lambda, 0, up)
			b.store(&fd.post[i], r, fd.cap)
			fd.used++
		}
	}
}
