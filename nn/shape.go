package nn

import "fmt"

// NumParams returns the number of weights and biases of n.
func (n *Network) NumParams() int {
	total := 0
	for _, l := range n.Layers {
		total += l.NumParams()
	}
	return total
}

// NumParams returns the number of weights and biases of l: Out() x (In()
// + 1) for a dense layer, the kernel and one bias per output for a
// structured one.
func (l Layer) NumParams() int {
	if l.Conv != nil {
		return len(l.Conv.Kernel) + l.Out()
	}
	return l.Out() * (l.In() + 1)
}

// Sizes returns the layer widths of n: the input size, then the output size
// of every layer, so len(Sizes()) == len(n.Layers)+1.
func (n *Network) Sizes() []int {
	s := make([]int, 0, len(n.Layers)+1)
	s = append(s, n.InputSize())
	for _, l := range n.Layers {
		s = append(s, l.Out())
	}
	return s
}

// HiddenSizes returns the output sizes of all layers but the last: the
// widths of the hidden layers.
func (n *Network) HiddenSizes() []int {
	s := n.Sizes()
	return s[1 : len(s)-1]
}

// SameShape reports whether a and b have the same number of layers with the
// same sizes, and returns an error wrapping ErrDimension saying where they
// first differ otherwise.
func SameShape(a, b *Network) error {
	if len(a.Layers) != len(b.Layers) {
		return fmt.Errorf("nn: networks have %d and %d layers: %w", len(a.Layers), len(b.Layers), ErrDimension)
	}
	for k := range a.Layers {
		la, lb := a.Layers[k], b.Layers[k]
		if la.In() != lb.In() || la.Out() != lb.Out() || (la.Conv == nil) != (lb.Conv == nil) ||
			(la.Conv != nil && !la.Conv.SameGeometry(lb.Conv)) {
			return fmt.Errorf("nn: layer %d is %dx%d in one network and %dx%d in the other: %w",
				k, la.Out(), la.In(), lb.Out(), lb.In(), ErrDimension)
		}
	}
	return nil
}

// Diff summarises how the parameters of a compressed network differ from
// those of its original.
type Diff struct {
	Params  int     // weights and biases compared
	Changed int     // parameters whose value differs
	Zeroed  int     // parameters non-zero in the original and zero in the copy
	MaxAbs  float64 // largest |copy - original|
	SumAbs  float64 // sum of |copy - original| over all parameters
	// Activations counts layers whose activation differs.
	Activations int
}

// ParamDiff compares the parameters of b with those of a, which must have
// the same shape (otherwise the error wraps ErrDimension).
func ParamDiff(a, b *Network) (Diff, error) {
	if err := SameShape(a, b); err != nil {
		return Diff{}, err
	}
	var d Diff
	add := d.add
	for k := range a.Layers {
		la, lb := a.Layers[k], b.Layers[k]
		if la.Conv != nil {
			for i, v := range la.Conv.Kernel {
				add(v, lb.Conv.Kernel[i])
			}
			for i, v := range la.B {
				add(v, lb.B[i])
			}
		} else {
			ra, rb := la.W.RawMatrix(), lb.W.RawMatrix()
			for i := range ra.Rows {
				for j := range ra.Cols {
					add(ra.Data[i*ra.Stride+j], rb.Data[i*rb.Stride+j])
				}
				add(la.B[i], lb.B[i])
			}
		}
		if la.Act != lb.Act {
			d.Activations++
		}
	}
	return d, nil
}

// Equal reports whether a and b have the same shape, activations,
// parameters (compared with ==, so -0 equals 0) and quantisers.
func Equal(a, b *Network) bool {
	d, err := ParamDiff(a, b)
	if err != nil || d.Changed != 0 || d.Activations != 0 || !a.Input.Equal(b.Input) {
		return false
	}
	for k := range a.Layers {
		la, lb := a.Layers[k], b.Layers[k]
		if !la.Pre.Equal(lb.Pre) || !la.Post.Equal(lb.Post) || !la.Int.Equal(lb.Int) {
			return false
		}
	}
	return true
}
