package qc

import "github.com/nnbound/nnbound/nn"

// Eta returns the eta of inputs x1, x2 (x2 ignored where not free) by
// evaluating both networks in float64, for tests and diagnostics. The
// networks must have no noise (Config.Noise); EtaNoisy takes it.
func (l *Layout) Eta(nets [2]*nn.Network, x1, x2 []float64) []float64 {
	return l.EtaNoisy(nets, x1, x2, nil)
}

// NoiseFunc returns the noise added to the pre-activation v of neuron i of
// layer k of network n (the rounding of its quantiser).
type NoiseFunc func(n, k, i int, v float64) float64

// EtaNoisy is Eta with the noise of each neuron with a noise coordinate
// given by noise (nil: none).
func (l *Layout) EtaNoisy(nets [2]*nn.Network, x1, x2 []float64, noise NoiseFunc) []float64 {
	eta := make([]float64, l.Dim)
	eta[l.One] = 1
	for i := range x1 {
		if l.Inputs1[i].Mode == InputFree {
			eta[l.X1[i].Idx[0]] = x1[i]
		}
		if l.Inputs[i].Mode == InputFree {
			eta[l.X2[i].Idx[0]] = x2[i]
		}
	}
	ins := [2][]float64{x1, make([]float64, len(x1))}
	for i := range x1 {
		switch l.Inputs[i].Mode {
		case InputFree:
			ins[1][i] = x2[i]
		case InputSame:
			ins[1][i] = x1[i]
		case InputFixed:
			ins[1][i] = l.Inputs[i].Value
		}
	}
	acts := make([][]float64, len(nets[0].Layers)) // network 1's act(xi), before any clamp
	for n := range 2 {
		h := ins[n]
		for k, nl := range nets[n].Layers {
			out, act := make([]float64, nl.Out()), make([]float64, nl.Out())
			lay := &l.Nets[n].Layers[k]
			for i := range out {
				s := nl.B[i]
				for j, v := range h {
					s += nl.W.At(i, j) * v
				}
				if c := lay.NoiseCoord[i]; c >= 0 && noise != nil {
					eta[c] = noise(n, k, i, s)
					s += eta[c]
				}
				act[i] = nl.Act.Apply(s)
				switch c := lay.Coord[i]; {
				case c >= 0 && lay.Diff[i]:
					eta[c] = act[i] - acts[k][i]
				case c >= 0:
					eta[c] = act[i]
				}
				out[i] = act[i]
				if c := lay.SatAbove[i]; c >= 0 {
					eta[c] = max(0, s-lay.Sat[i].Hi)
					out[i] -= eta[c]
				}
				if c := lay.SatBelow[i]; c >= 0 {
					eta[c] = max(0, lay.Sat[i].Lo-s)
					out[i] += eta[c]
				}
			}
			if n == 0 {
				acts[k] = act
			}
			h = out
		}
	}
	return eta
}
