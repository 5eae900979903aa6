package boundstest

import (
	"math/rand/v2"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
)

// Int8 returns a random int8 or narrower copy of the plain network f
// (quantise.Int8) and the options it drew: per-tensor or per-channel
// weights, symmetric or asymmetric activations, 3 to 8 bits, and every
// range calibrated on the inputs xs, then shrunk (to 20-110% of its
// width) and shifted at random, so that quantisers saturate and their
// scales and zero points are random.
func Int8(rng *rand.Rand, f *nn.Network, xs [][]float64) (*nn.Network, quantise.Int8Options, error) {
	r, err := quantise.SampleRanges(f, xs)
	if err != nil {
		return nil, quantise.Int8Options{}, err
	}
	narrow := func(a [2]float64) [2]float64 {
		c, h := (a[0]+a[1])/2, (a[1]-a[0])/2*(0.2+0.9*rng.Float64())
		c += (rng.Float64() - 0.5) * h
		return [2]float64{c - h, c + h}
	}
	r.Input = narrow(r.Input)
	for k := range r.Pre {
		r.Pre[k] = narrow(r.Pre[k])
	}
	o := quantise.Int8Options{Bits: 3 + rng.IntN(6), PerChannel: rng.IntN(2) == 0, Symmetric: rng.IntN(2) == 0}
	q, err := quantise.Int8(f, r, o)
	return q, o, err
}
