package onnx

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// A residual block y = Add(h, branch(h)), the branch a chain of affine
// maps and ReLU layers, is written exactly as a chain: the skip value h
// rides along the branch's layers, through each ReLU layer as its two
// halves
//
//	p = relu(h),  m = relu(-h),  h = p - m,
//
// so a branch layer relu(W u + c) becomes
//
//	relu([W 0; 0 S] [u; s] + [c; 0])
//
// with s the skip as carried so far (h before the first ReLU layer, [p; m]
// after) and S the map from s to [h; -h] ([I; -I] or [I -I; -I I]). The
// Add itself is the affine map [u; s] -> u + h. The block costs 2n extra
// neurons per ReLU layer of the branch, n the size of h.

// skipState is how the skip value of a residual block is carried.
type skipState struct {
	n     int  // size of h
	split bool // carried as [p; m] rather than h
}

// width returns the number of values carrying the skip.
func (s skipState) width() int {
	if s.split {
		return 2 * s.n
	}
	return s.n
}

// offset returns the column where the skip starts in the input [u; s] of
// a layer whose u has cols values: 0 while u and s are both h.
func (s skipState) offset(cols int) int {
	if s.split {
		return cols
	}
	return 0
}

// residualJoin returns the index of the Add node joining the branch that
// starts at node i, or -1 if node i does not start a residual block: the
// data is read by node i and by a later Add, and by nothing else.
func (b *builder) residualJoin(i int) (int, error) {
	if b.data == b.fork {
		return -1, nil // the branch of the block being translated
	}
	readers := b.reads[b.data]
	if len(readers) < 2 || readers[0] != i {
		return -1, nil
	}
	j := readers[len(readers)-1]
	if len(readers) > 2 || b.g.nodes[j].opType != "Add" || len(b.g.nodes[j].inputs) != 2 {
		n := b.g.nodes[j]
		return -1, fmt.Errorf("%q is also read by %s; nnbound reads a branch only as the "+
			"skip of a residual Add: %w", b.data, label(j, n), ErrNotChain)
	}
	if add := b.g.nodes[j]; len(add.outputs) == 0 || add.outputs[0] == "" {
		return -1, fmt.Errorf("%s has no output: %w", label(j, add), ErrMalformed)
	}
	return j, nil
}

// residual translates the block from node i (the first node of the
// branch) to node j (the Add).
func (b *builder) residual(i, j int) error {
	h, add := b.data, b.g.nodes[j]
	sub := &builder{g: b.g, bud: b.bud, inits: b.inits, consts: b.consts, used: b.used, reads: b.reads,
		data: h, fork: h, shape: b.shape}
	if err := sub.nodes(i, j); err != nil {
		return err
	}
	other := add.inputs[0]
	if other == h {
		other = add.inputs[1]
	}
	if sub.data != other {
		return fmt.Errorf("%s adds %q to %q, not to the end of the branch from %q (%q): %w",
			label(j, add), h, other, h, sub.data, ErrNotChain)
	}
	if !slices.Equal(sub.shape.dims, b.shape.dims) || sub.shape.batch != b.shape.batch {
		return fmt.Errorf("%s: residual of shape %v and branch of shape %v: %w",
			label(j, add), b.shape, sub.shape, ErrShape)
	}
	if err := sub.flushClip(); err != nil {
		return err
	}
	if sub.pend != nil || len(sub.layers) == 0 {
		if err := sub.emit(nn.Activation{Kind: nn.Identity}); err != nil {
			return err
		}
	}
	if err := sub.unquantised(); err != nil {
		return fmt.Errorf("%s: %w", label(j, add), err)
	}
	if err := b.carry(sub.layers); err != nil {
		return fmt.Errorf("%s: %w", label(j, add), err)
	}
	relus := 0
	for _, l := range sub.layers {
		if l.Act.Kind == nn.ReLU {
			relus++
		}
	}
	b.lowerings = append(b.lowerings, append(sub.lowerings,
		fmt.Sprintf("residual Add of %d values, carried through %d ReLU layer(s)", b.shape.size(), relus))...)
	b.used[h], b.used[other] = true, true
	b.data = add.outputs[0]
	return nil
}

// unquantised reports a branch with a quantiser on its start, its
// layers or a DequantizeLinear still to come: the carried skip would pass
// through the branch's quantisers, so such a block is refused rather than
// read as another function.
func (b *builder) unquantised() error {
	quantised := b.inputQ != nil || b.preQ != nil || b.quant != nil
	for _, l := range b.layers {
		quantised = quantised || l.Pre != nil || l.Post != nil
	}
	if quantised {
		return fmt.Errorf("a residual branch with quantisers (QuantizeLinear/DequantizeLinear) is not read as a chain: %w",
			ErrUnsupportedOp)
	}
	return nil
}

// carry appends the branch layers with the skip carried alongside, then
// the Add.
func (b *builder) carry(branch []nn.Layer) error {
	s := skipState{n: b.shape.size()}
	dense, err := nn.Densify(&nn.Network{Layers: branch}, MaxLoweredEntries)
	if err != nil {
		return fmt.Errorf("a residual branch is carried as dense matrices: %w: %w", err, ErrTooLarge)
	}
	branch = dense.Layers
	for k, l := range branch {
		switch {
		case l.Act.Kind == nn.Identity && k == len(branch)-1:
			return b.join(l.W, l.B, s)
		case l.Act.Kind != nn.ReLU:
			return fmt.Errorf("residual branch with a %v layer; nnbound reads residual branches of affine maps and ReLU: %w",
				l.Act.Kind, ErrUnsupportedOp)
		}
		a, err := b.blockMap(l.W, l.B, s)
		if err != nil {
			return err
		}
		if err := b.applyAffine(a); err != nil {
			return err
		}
		if err := b.emit(l.Act); err != nil {
			return err
		}
		s.split = true
	}
	return b.join(nil, nil, s)
}

// blockMap returns [u; s] -> [W u + c; S s] (see the top of the file).
// Before the first ReLU layer u and s are both h: the map is
// h -> [W h + c; h; -h].
func (b *builder) blockMap(w *mat.Dense, c []float64, s skipState) (*affine, error) {
	r, cols := w.Dims()
	off := s.offset(cols)
	a, err := b.grantAffine(r+2*s.n, off+s.width())
	if err != nil {
		return nil, err
	}
	copy(a.b, c)
	for i := range r {
		copy(a.w.RawRowView(i)[:cols], w.RawRowView(i))
	}
	for i := range s.n {
		a.w.Set(r+i, off+i, 1)
		a.w.Set(r+s.n+i, off+i, -1)
		if s.split {
			a.w.Set(r+i, off+s.n+i, -1)
			a.w.Set(r+s.n+i, off+s.n+i, 1)
		}
	}
	return a, nil
}

// join appends the Add: [u; s] -> W u + c + h, or u + h if w is nil
// (before any ReLU layer, h -> (W + I) h + c).
func (b *builder) join(w *mat.Dense, c []float64, s skipState) error {
	r, cols := s.n, s.n
	if w != nil {
		r, cols = w.Dims()
	}
	off := s.offset(cols)
	a, err := b.grantAffine(r, off+s.width())
	if err != nil {
		return err
	}
	copy(a.b, c)
	for i := range r {
		row := a.w.RawRowView(i)
		if w != nil {
			copy(row[:cols], w.RawRowView(i))
		} else {
			row[i] = 1
		}
		row[off+i]++
		if s.split {
			row[off+s.n+i] = -1
		}
	}
	return b.applyAffine(a)
}

// grantAffine returns a zero r x c affine map whose memory (and that of a
// fused copy) is granted to the budget: the size of a residual block
// follows from the shapes of its layers.
func (b *builder) grantAffine(r, c int) (*affine, error) {
	if c > MaxLoweredEntries/r {
		return nil, fmt.Errorf("residual block lowered to a dense %d x %d matrix exceeds %d entries: %w",
			r, c, MaxLoweredEntries, ErrTooLarge)
	}
	if err := b.bud.grant(2 * (r*c + r)); err != nil {
		return nil, err
	}
	a := &affine{in: c, out: r}
	var err error
	if a.w, err = b.bud.dense(r, c); err != nil {
		return nil, err
	}
	a.b, err = b.bud.vec(r)
	return a, err
}
