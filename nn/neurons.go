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

// SelectChannels rewrites the convolutional layer k of n so that its
// output channel i is the old channel src[i] (a subset or permutation of
// its channels: its kernel and bias), and the next layer reads only those
// channels: a convolution of one group loses the matching input channels
// of its kernel, a dense layer the columns of the dropped channels'
// positions. It returns an error wrapping ErrDimension if layer k is not
// a convolution followed by a layer, src is empty or out of range, or the
// next convolution has groups.
func (n *Network) SelectChannels(k int, src []int) error {
	if k < 0 || k >= len(n.Layers)-1 || n.Layers[k].Conv == nil {
		return fmt.Errorf("nn: layer %d of %d is not a hidden convolutional layer: %w", k, len(n.Layers), ErrDimension)
	}
	l, next := n.Layers[k], n.Layers[k+1]
	c := l.Conv
	if len(src) == 0 || c.Groups != 1 || (next.Conv != nil && next.Conv.Groups != 1) {
		return fmt.Errorf("nn: selecting %d channels of layer %d (groups %d): %w", len(src), k, c.Groups, ErrDimension)
	}
	per, plane := len(c.Kernel)/c.OutC, c.OutH*c.OutW
	nc := c.WithKernel(make([]float64, 0, len(src)*per))
	nc.OutC = len(src)
	b := make([]float64, 0, len(src)*plane)
	for _, j := range src {
		if j < 0 || j >= c.OutC {
			return fmt.Errorf("nn: channel %d of layer %d, which has %d: %w", j, k, c.OutC, ErrDimension)
		}
		nc.Kernel = append(nc.Kernel, c.Kernel[j*per:(j+1)*per]...)
		b = append(b, l.B[j*plane:(j+1)*plane]...)
	}
	n.Layers[k] = Layer{Conv: nc, B: b, Act: l.Act}
	if nx := next.Conv; nx != nil {
		kk := nx.KH * nx.KW
		k2 := nx.WithKernel(make([]float64, 0, nx.OutC*len(src)*kk))
		k2.InC = len(src)
		for m := range nx.OutC {
			for _, j := range src {
				base := (m*nx.InC + j) * kk
				k2.Kernel = append(k2.Kernel, nx.Kernel[base:base+kk]...)
			}
		}
		n.Layers[k+1] = Layer{Conv: k2, B: next.B, Act: next.Act}
		return nil
	}
	w := mat.NewDense(next.Out(), len(src)*plane, nil)
	for o := range next.Out() {
		row, dst := next.W.RawRowView(o), w.RawRowView(o)
		for i, j := range src {
			copy(dst[i*plane:(i+1)*plane], row[j*plane:(j+1)*plane])
		}
	}
	n.Layers[k+1] = Layer{W: w, B: next.B, Act: next.Act}
	return nil
}
