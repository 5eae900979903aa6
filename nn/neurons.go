package nn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// SelectNeurons rewrites hidden layer k of n so that its neuron i is the
// old neuron src[i], or a new dead neuron (zero weights, bias and outgoing
// weights) where src[i] < 0; the columns of layer k+1 follow. With src a
// permutation this permutes the layer's neurons, leaving n's function
// unchanged in exact arithmetic; with a subset it removes neurons; with
// -1 entries it pads the layer. The new layers own fresh matrices (layer
// k+1 keeps its bias slice). It returns an error wrapping ErrDimension if
// k is not a hidden layer, src is empty or an entry of src is out of
// range.
func (n *Network) SelectNeurons(k int, src []int) error {
	if k < 0 || k >= len(n.Layers)-1 {
		return fmt.Errorf("nn: layer %d of %d is not a hidden layer: %w", k, len(n.Layers), ErrDimension)
	}
	if len(src) == 0 {
		return fmt.Errorf("nn: layer %d would have no neurons: %w", k, ErrDimension)
	}
	l, next := n.Layers[k], n.Layers[k+1]
	if l.Conv != nil || next.Conv != nil {
		return fmt.Errorf("nn: selecting neurons of layer %d: %w", k, ErrStructured)
	}
	for i, j := range src {
		if j >= l.Out() {
			return fmt.Errorf("nn: neuron %d of layer %d taken from neuron %d of %d: %w", i, k, j, l.Out(), ErrDimension)
		}
	}
	w := mat.NewDense(len(src), l.In(), nil)
	b := make([]float64, len(src))
	wn := mat.NewDense(next.Out(), len(src), nil)
	for i, j := range src {
		if j < 0 {
			continue
		}
		w.SetRow(i, l.W.RawRowView(j))
		b[i] = l.B[j]
		for o := range next.Out() {
			wn.Set(o, i, next.W.At(o, j))
		}
	}
	n.Layers[k] = Layer{W: w, B: b, Act: l.Act}
	n.Layers[k+1] = Layer{W: wn, B: next.B, Act: next.Act}
	return nil
}
