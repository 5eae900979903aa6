package onnx

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// Writing the pieces of transformer graphs (graphattn.go) on flat
// [N, size] tensors: nn.Unary as its ONNX operator (Square and Cube as
// products, GELU as its erf form), nn.Mul as Mul, an nn.Sparse map as a
// Gather of the entries' columns, a Mul by the weights, a Reshape to rows
// of equal length (short rows padded with weight 0) and a ReduceSum, an
// nn.RowMap as a Reshape to its rows, a MatMul and a Reshape back.

// unary writes F(h).
func (w *graphWriter) unary(u nn.Unary, h string) (string, error) {
	switch u.F {
	case nn.Exp, nn.Sqrt, nn.Reciprocal, nn.Erf:
		op := map[nn.UnaryFunc]string{nn.Exp: "Exp", nn.Sqrt: "Sqrt", nn.Reciprocal: "Reciprocal", nn.Erf: "Erf"}[u.F]
		return w.node(op, u.F.String(), []string{h}), nil
	case nn.Square:
		return w.node("Mul", "square", []string{h, h}), nil
	case nn.Cube:
		sq := w.node("Mul", "square", []string{h, h})
		return w.node("Mul", "cube", []string{sq, h}), nil
	case nn.GELU:
		c, err := w.param("c", nil, []float64{u.C})
		if err != nil {
			return "", err
		}
		one, err := w.param("one", nil, []float64{1})
		if err != nil {
			return "", err
		}
		half, err := w.param("half", nil, []float64{0.5})
		if err != nil {
			return "", err
		}
		e := w.node("Erf", "erf", []string{w.node("Mul", "geluarg", []string{h, c})})
		p := w.node("Mul", "geluprod", []string{h, w.node("Add", "gelusum", []string{e, one})})
		return w.node("Mul", "gelu", []string{p, half}), nil
	}
	return "", fmt.Errorf("%s: %w", w.g.Label(w.k), ErrNotWritable)
}

// sparse writes M h for a sparse map M.
func (w *graphWriter) sparse(m *nn.Sparse, h string) (string, error) {
	out, width := m.Out(), 0
	for i := range out {
		width = max(width, m.Start[i+1]-m.Start[i])
	}
	if width == 0 {
		return "", fmt.Errorf("%s: a sparse map without entries: %w", w.g.Label(w.k), ErrNotWritable)
	}
	cols, wts := make([]int64, out*width), make([]float64, out*width)
	for i := range out {
		for k := m.Start[i]; k < m.Start[i+1]; k++ {
			cols[i*width+k-m.Start[i]] = int64(m.Col[k])
			wts[i*width+k-m.Start[i]] = m.W[k]
		}
	}
	wName, err := w.param("W", []int64{int64(len(wts))}, wts)
	if err != nil {
		return "", err
	}
	idx, dims, axes := fmt.Sprintf("cols%d", w.k), fmt.Sprintf("rows%d", w.k), fmt.Sprintf("sumaxis%d", w.k)
	w.inits = append(w.inits, encodeInt64s(idx, cols), encodeInt64s(dims, []int64{-1, int64(out), int64(width)}),
		encodeInt64s(axes, []int64{2}))
	g := w.node("Gather", "entries", []string{h, idx}, encodeIntAttr("axis", 1))
	p := w.node("Reshape", "rows", []string{w.node("Mul", "weighted", []string{g, wName}), dims})
	return w.node("ReduceSum", "sparse", []string{p, axes}, encodeIntAttr("keepdims", 0)), nil
}

// rowMap writes (I ⊗ W) h: h reshaped to [N, Rows, k], times W^T, and
// flattened back.
func (w *graphWriter) rowMap(m *nn.RowMap, h string) (string, error) {
	r, c := m.W.Dims()
	wt := make([]float64, 0, r*c)
	for i := range c {
		for j := range r {
			wt = append(wt, m.W.At(j, i))
		}
	}
	wName, err := w.param("W", []int64{int64(c), int64(r)}, wt)
	if err != nil {
		return "", err
	}
	rows, flat := fmt.Sprintf("rowshape%d", w.k), fmt.Sprintf("flatshape%d", w.k)
	w.inits = append(w.inits, encodeInt64s(rows, []int64{-1, int64(m.Rows), int64(c)}),
		encodeInt64s(flat, []int64{-1, int64(m.Rows * r)}))
	p := w.node("MatMul", "rowmap", []string{w.node("Reshape", "rows", []string{h, rows}), wName})
	return w.node("Reshape", "rowsflat", []string{p, flat}), nil
}
