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
// handle (ForwardDiff: an activation other than identity or ReLU); callers
// fall back to another method.
var ErrUnsupported = errors.New("unsupported network")

// ForwardDiff bounds g(x) - f(x) over a box of inputs x by forward symbolic
// propagation, as ReluDiff and NeuroDiff do: a cheap first stage before
// Pair's back-substitution in a branch and bound over the box.
//
// For every neuron of f and of g it carries a lower and an upper linear
// form in x (n0 coefficients and a constant), and, for every layer where
// the widths agree, forms of the difference delta = h_g - h_f of
// corresponding neurons. Through a layer the difference of pre-activations
// is the better (per neuron, by its bound on the box) of
//
//	W_g delta + (W_g - W_f) h_f + (b_g - b_f),
//	xi_g - xi_f                                  (the two networks' forms),
//
// and through a pair of ReLUs, with d = xi_g - xi_f, the best of
//
//	h_g - h_f between the two networks' relaxations (always),
//	min(d, 0) <= delta <= max(d, 0)             (always, by the chords),
//	delta >= d (f active),  delta <= d (g active),
//
// so both stable active neurons pass d, both inactive give 0, and mixed
// ones their relaxation (NeuroDiff's case analysis). ReLU relaxations are
// Neurify's symbolic intervals: the chord above, the parallel line below.
// Every float64 operation is accounted for (forwardform.go), so the bounds
// hold for the exact real networks. The cost of Bound is O(layers *
// width^2 * n0) and it allocates nothing.
//
// A ForwardDiff is made once per pair and reused; it is not safe for
// concurrent use (make one per goroutine).
type ForwardDiff struct {
	f, g  *nn.Network
	n0, s int
	diffs []*layerDiff // g - f per layer where both shapes agree, else nil
	delta []bool       // per layer: the output widths agree
	box   boxForms
	// in, pre and post hold the forms of f, g and delta (indices 0, 1, 2)
	// at the input of the current layer, its pre-activations and outputs.
	in, pre, post [3]bound
	// zlo, zhi are the pre-activation ranges of the current layer of f
	// and g.
	zlo, zhi [2][]float64
	scratch  []float64
	out      []Interval
}

// NewForwardDiff returns the forward bound of the pair f, g: dense chains
// with the same input and output sizes, of any widths, whose activations
// are identity or ReLU (else an error wrapping ErrUnsupported).
func NewForwardDiff(f, g *nn.Network) (*ForwardDiff, error) {
	for i, n := range []*nn.Network{f, g} {
		if n == nil {
			return nil, fmt.Errorf("bounds: forward: network %d is nil: %w", i+1, nn.ErrDimension)
		}
		if err := n.Validate(); err != nil {
			return nil, fmt.Errorf("bounds: forward: network %d: %w", i+1, err)
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
	fd := &ForwardDiff{f: f, g: g, n0: n0, s: n0 + 1, out: make([]Interval, f.OutputSize()), scratch: make([]float64, n0+1)}
	width := n0
	depth := max(len(f.Layers), len(g.Layers))
	fd.diffs, fd.delta = make([]*layerDiff, depth), make([]bool, depth)
	for k := range depth {
		var lf, lg *nn.Layer
		if k < len(f.Layers) {
			lf = &f.Layers[k]
			width = max(width, lf.Out())
		}
		if k < len(g.Layers) {
			lg = &g.Layers[k]
			width = max(width, lg.Out())
		}
		if lf == nil || lg == nil || lf.Out() != lg.Out() {
			continue
		}
		fd.delta[k] = true
		if lf.In() == lg.In() {
			fd.diffs[k] = newLayerDiff(*lf, *lg, nil, nil)
		}
	}
	fd.box = boxForms{lo: make([]float64, n0), hi: make([]float64, n0), mag: make([]float64, n0)}
	for i := range 3 {
		fd.in[i], fd.pre[i], fd.post[i] = newBound(width, fd.s), newBound(width, fd.s), newBound(width, fd.s)
	}
	for i := range 2 {
		fd.zlo[i], fd.zhi[i] = make([]float64, width), make([]float64, width)
	}
	return fd, nil
}

// Bound returns enclosures of g_k(x) - f_k(x) over x in box, one per
// output. The slice is owned by fd and overwritten by the next call. It
// returns an error for a box of the wrong dimension or an invalid one.
func (fd *ForwardDiff) Bound(box spec.Box) ([]Interval, error) {
	if box.Dim() != fd.n0 {
		return nil, fmt.Errorf("bounds: forward: box has %d coordinates, networks take %d: %w", box.Dim(), fd.n0, nn.ErrDimension)
	}
	if err := box.Validate(); err != nil {
		return nil, fmt.Errorf("bounds: forward: %w", err)
	}
	fd.box.setBox(box.Lo, box.Hi)
	fd.setInput()
	if len(fd.f.Layers) != len(fd.g.Layers) {
		return fd.unequalDepths(), nil
	}
	hasDelta := true
	for k := range fd.f.Layers {
		lf, lg := &fd.f.Layers[k], &fd.g.Layers[k]
		fd.layer(0, lf)
		fd.layer(1, lg)
		fd.ranges(0, lf.Out())
		fd.ranges(1, lg.Out())
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
	}
	m := len(fd.out)
	for i := range m {
		d := fd.in[2]
		iv := Interval{fd.in[1].lower.lo[i], fd.in[1].upper.hi[i]}.Sub(Interval{fd.in[0].lower.lo[i], fd.in[0].upper.hi[i]})
		fd.out[i] = iv.Intersect(Interval{d.lower.lo[i], d.upper.hi[i]})
	}
	return fd.out, nil
}

// Coefficients returns the coefficients of x in the lower and upper forms
// of g_k - f_k found by the last Bound (slices owned by fd): how much each
// input moves the bound, for choosing the coordinate to split.
func (fd *ForwardDiff) Coefficients(k int) (lower, upper []float64) {
	d := &fd.in[2]
	return d.lower.row(k, fd.s)[:fd.n0], d.upper.row(k, fd.s)[:fd.n0]
}

// setInput sets the forms of the input layer: x_j for both networks, 0 for
// their difference.
func (fd *ForwardDiff) setInput() {
	s := fd.s
	for j := range fd.n0 {
		for i := range 3 {
			for _, fs := range []*formSet{&fd.in[i].lower, &fd.in[i].upper} {
				row := fs.row(j, s)
				zeroForm(row)
				if i < 2 {
					row[j] = 1
					fs.lo[j], fs.hi[j], fs.mag[j] = fd.box.lo[j], fd.box.hi[j], fd.box.mag[j]
				} else {
					fs.lo[j], fs.hi[j], fs.mag[j] = 0, 0, 0
				}
			}
		}
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
	for i := range fd.out {
		fd.netsDiff(&fd.pre[2], i, &fd.in[1], &fd.in[0], true)
		d := fd.pre[2]
		fd.out[i] = Interval{d.lower.lo[i], d.upper.hi[i]}
	}
	return fd.out
}

// layer propagates network i's forms through layer l, from fd.in[i] to
// fd.pre[i] and fd.post[i].
func (fd *ForwardDiff) layer(i int, l *nn.Layer) {
	w := l.W.RawMatrix()
	s := fd.s
	for r := range w.Rows {
		wr := w.Data[r*w.Stride : r*w.Stride+w.Cols]
		for _, up := range []bool{false, true} {
			fs := fd.pre[i].set(up)
			row := fs.row(r, s)
			zeroForm(row)
			row[s-1] = l.B[r]
			abs := accum(row, wr, &fd.in[i], up) + math.Abs(l.B[r])
			fd.box.finish(fs, r, row, fd.box.margin(abs, w.Cols+1), up)
		}
	}
}

// ranges sets the pre-activation ranges of network i's neurons (width of
// them) from its own forms.
func (fd *ForwardDiff) ranges(i, width int) {
	p := &fd.pre[i]
	for r := range width {
		fd.zlo[i][r], fd.zhi[i][r] = p.lower.lo[r], p.upper.hi[r]
	}
}

// crossRanges tightens the pre-activation ranges of both networks by
// those of the other and of the difference d = xi_g - xi_f (ReluDiff):
// xi_g in xi_f + d, xi_f in xi_g - d.
func (fd *ForwardDiff) crossRanges(width int) {
	d := &fd.pre[2]
	for r := range width {
		lf, uf, lg, ug := fd.zlo[0][r], fd.zhi[0][r], fd.zlo[1][r], fd.zhi[1][r]
		dl, du := d.lower.lo[r], d.upper.hi[r]
		fd.zlo[0][r], fd.zhi[0][r] = max(lf, outward.SubDown(lg, du)), min(uf, outward.SubUp(ug, dl))
		fd.zlo[1][r], fd.zhi[1][r] = max(lg, outward.AddDown(lf, dl)), min(ug, outward.AddUp(uf, du))
	}
}

// activateLayer sets the output forms of network i's layer l.
func (fd *ForwardDiff) activateLayer(i int, l *nn.Layer) {
	for r := range l.Out() {
		fd.activate(i, l.Act, r)
	}
}

// activate sets the output forms of neuron r of network i from its
// pre-activation forms: those forms where the neuron is the identity or
// its pre-activation range is nonnegative (the ReLU passes it), 0 where
// the range is nonpositive, else their ReLU relaxations.
func (fd *ForwardDiff) activate(i int, a nn.Activation, r int) {
	s := fd.s
	p, q := &fd.pre[i], &fd.post[i]
	lp, up := p.lower.row(r, s), p.upper.row(r, s)
	lq, uq := q.lower.row(r, s), q.upper.row(r, s)
	if a.Kind == nn.Identity || fd.zlo[i][r] >= 0 {
		copy(lq, lp)
		copy(uq, up)
		q.lower.lo[r], q.lower.hi[r], q.lower.mag[r] = p.lower.lo[r], p.lower.hi[r], p.lower.mag[r]
		q.upper.lo[r], q.upper.hi[r], q.upper.mag[r] = p.upper.lo[r], p.upper.hi[r], p.upper.mag[r]
		return
	}
	if fd.zhi[i][r] <= 0 {
		zeroForm(lq)
		zeroForm(uq)
		q.lower.lo[r], q.lower.hi[r], q.lower.mag[r] = 0, 0, 0
		q.upper.lo[r], q.upper.hi[r], q.upper.mag[r] = 0, 0, 0
		return
	}
	e := fd.box.reluLower(lq, lp, p.lower.lo[r], p.lower.hi[r], p.lower.mag[r])
	fd.box.finish(&q.lower, r, lq, e, false)
	e = fd.box.reluUpper(uq, up, p.upper.lo[r], p.upper.hi[r], p.upper.mag[r])
	fd.box.finish(&q.upper, r, uq, e, true)
}
