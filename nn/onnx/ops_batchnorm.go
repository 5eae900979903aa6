package onnx

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/nn"
)

// batchNorm returns the elementwise affine map of a BatchNormalization
// node on data of shape x.
func batchNorm(x shape, n *node, ops operands, bud *budget) (*affine, error) {
	if ops.data != 0 || len(ops.consts) != 5 {
		return nil, fmt.Errorf("%d inputs with the data at %d, want X, scale, B, mean, var: %w", len(ops.consts), ops.data, ErrMalformed)
	}
	if n.intAttr("training_mode", 0) != 0 || len(n.outputs) > 1 {
		return nil, fmt.Errorf("training mode (running statistics as outputs): %w", ErrUnsupportedOp)
	}
	if n.intAttr("spatial", 1) == 0 {
		return nil, fmt.Errorf("spatial = 0 (per-value statistics, opset < 9): %w", ErrUnsupportedOp)
	}
	s := x
	if s.rank() < 2 || (s.batch != 0 && s.batch != -1) || (s.batch == -1 && s.dims[0] != 1) {
		return nil, fmt.Errorf("input of shape %v; BatchNormalization needs [N,C,...]: %w", s, ErrShape)
	}
	c := int(s.dims[1])
	var p [4][]float64 // scale, B, mean, var
	for i := range p {
		var err error
		if _, p[i], err = ops.constFloats(i + 1); err == nil {
			err = finite(p[i])
		}
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", i+1, err)
		}
		if len(p[i]) != c {
			return nil, fmt.Errorf("input %d has %d values for %d channels: %w", i+1, len(p[i]), c, ErrShape)
		}
	}
	eps := n.floatAttr("epsilon", float64(float32(1e-5)))
	size := s.size()
	inner := size / c
	scale, err := bud.vec(size)
	if err != nil {
		return nil, err
	}
	shift, err := bud.vec(size)
	if err != nil {
		return nil, err
	}
	for ch := range c {
		d := p[3][ch] + eps
		if !(d > 0) {
			return nil, fmt.Errorf("channel %d: var + epsilon = %v is not positive: %w", ch, d, nn.ErrNotFinite)
		}
		sc := p[0][ch] / math.Sqrt(d)
		for v := ch * inner; v < (ch+1)*inner; v++ {
			scale[v], shift[v] = sc, p[1][ch]-sc*p[2][ch]
		}
	}
	a, err := elementwise(size, nil, scale, shift, bud)
	if err != nil {
		return nil, err
	}
	return a, nil
}
