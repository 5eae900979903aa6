package bounds

import "github.com/nnbound/nnbound/nn"

// symbolicNet returns bounds of f on the box in by back-substitution: each
// layer's pre-activation is bounded by a linear form in the outputs of every
// layer below it in turn, down to the input, through the linear relaxations
// of the activations (relax.go); the tightest concretisation at any level,
// and the interval bound, is kept. So the result is never looser than
// intervalNet's.
func symbolicNet(f *nn.Network, in []Interval) *Net {
	net := &Net{In: in, Pre: make([][]Interval, len(f.Layers)), Post: make([][]Interval, len(f.Layers))}
	rels := make([]stepRelax, len(f.Layers))
	x := in
	for k, l := range f.Layers {
		net.Pre[k] = affine(l, x)
		if k > 0 {
			hi := backSubstitute(f, net, rels, k, false)
			lo := backSubstitute(f, net, rels, k, true)
			for i := range net.Pre[k] {
				net.Pre[k][i] = net.Pre[k][i].Intersect(Interval{-lo[i], hi[i]})
			}
		}
		net.Post[k] = images(l.Act, net.Pre[k])
		rels[k] = lineRelax(relaxLayer(l.Act, net.Pre[k]))
		x = net.Post[k]
	}
	return net
}

// backSubstitute returns upper bounds of the pre-activations of layer k (of
// their negations, with neg) from the bounds and relaxations of the layers
// below.
func backSubstitute(f *nn.Network, net *Net, rels []stepRelax, k int, neg bool) []float64 {
	l := f.Layers[k]
	form := newForm(l.W, l.B, neg)
	best := form.concretise(net.Post[k-1])
	for j := k - 1; j >= 0; j-- {
		form.relaxStep(rels[j], mags(net.Pre[j]))
		below := net.In
		if j > 0 {
			below = net.Post[j-1]
		}
		form.affineStep(f.Layers[j].W, f.Layers[j].B, mags(below))
		for i, v := range form.concretise(below) {
			best[i] = min(best[i], v)
		}
	}
	return best
}
