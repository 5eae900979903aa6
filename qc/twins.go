package qc

import "github.com/nnbound/nnbound/nn"

// exactTwins returns, for every neuron i of layer k of network 2,
// whether it provably computes exactly the number neuron i of layer k of
// network 1 computes, for every input pair: the two layers have the same
// activation and fan-in, the neuron's weight row and bias are identical
// float64 numbers, and every input with a non-zero weight is exactly the
// same in both networks (and neither neuron has noise, Config.Noise), an
// input coordinate being the same when x2_j =
// x1_j (InputSame) or both are the same constant, and a neuron of the
// layer below when it is itself a twin.
//
// Identical weights on identical inputs give identical exact
// pre-activations, so the two outputs are equal in exact arithmetic (and
// in float64, the sums being evaluated in the same order). Forms compared
// after rounding cannot prove this: weights that differ by less than a
// form's rounding look equal.
func exactTwins(nets [2]*nn.Network, in1, in2 []Input, noise [2][][]float64) [][]bool {
	n1, n2 := nets[0], nets[1]
	same := make([]bool, len(in2))
	for j := range same {
		switch {
		case in2[j].Mode == InputSame:
			same[j] = true
		case in2[j].Mode == InputFixed && in1[j].Mode == InputFixed:
			same[j] = in1[j].Value == in2[j].Value
		}
	}
	twins := make([][]bool, len(n2.Layers))
	for k, l2 := range n2.Layers {
		twins[k] = make([]bool, l2.Out())
		if k >= len(n1.Layers) {
			same = twins[k] // all false
			continue
		}
		l1 := n1.Layers[k]
		if l1.Act != l2.Act || l1.In() != l2.In() {
			same = twins[k]
			continue
		}
		for i := range min(l1.Out(), l2.Out()) {
			twins[k][i] = sameNeuron(&l1, &l2, i, same) && noiseAt(noise[0], k, i) == 0 && noiseAt(noise[1], k, i) == 0
		}
		same = twins[k]
	}
	return twins
}

// sameNeuron reports whether row i of l1 and l2 has identical weights and
// bias and every input with a non-zero weight is the same (same[j]).
func sameNeuron(l1, l2 *nn.Layer, i int, same []bool) bool {
	if l1.B[i] != l2.B[i] {
		return false
	}
	for j := range l1.In() {
		w1, w2 := l1.W.At(i, j), l2.W.At(i, j)
		if w1 != w2 || (w1 != 0 && !same[j]) {
			return false
		}
	}
	return true
}
