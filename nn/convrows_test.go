package nn

import (
	"math/rand/v2"
	"testing"
)

// TestAddTransposedRows checks the banded transposed convolution against
// ApplyTransposed on coefficients zero outside the band, and that it
// changes nothing outside the input band it returns.
func TestAddTransposedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, c := range []*Conv2D{
		{InC: 2, InH: 7, InW: 6, OutC: 3, OutH: 7, OutW: 6, KH: 3, KW: 3, Stride: [2]int{1, 1}, Pad: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1},
		{InC: 2, InH: 8, InW: 8, OutC: 4, OutH: 4, OutW: 4, KH: 3, KW: 3, Stride: [2]int{2, 2}, Pad: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 2},
		{InC: 2, InH: 8, InW: 8, OutC: 2, OutH: 4, OutW: 4, KH: 1, KW: 1, Stride: [2]int{2, 2}, Dil: [2]int{1, 1}, Groups: 1},
	} {
		c.Kernel = randVec(rng, c.OutC*c.InC/c.Groups*c.KH*c.KW, 1)
		for oh0 := range c.OutH {
			for oh1 := oh0 + 1; oh1 <= c.OutH; oh1++ {
				y := make([]float64, c.Out())
				for m := range c.OutC {
					for oh := oh0; oh < oh1; oh++ {
						for ow := range c.OutW {
							y[(m*c.OutH+oh)*c.OutW+ow] = rng.NormFloat64()
						}
					}
				}
				want, got := make([]float64, c.In()), make([]float64, c.In())
				c.ApplyTransposed(want, y)
				ih0, ih1 := c.AddTransposedRows(got, y, oh0, oh1)
				for i := range want {
					h := i % (c.InH * c.InW) / c.InW
					if d := got[i] - want[i]; d > 1e-12 || d < -1e-12 || (got[i] != 0 && (h < ih0 || h >= ih1)) {
						t.Fatalf("rows [%d, %d): input %d (row %d, band [%d, %d)) is %v, want %v", oh0, oh1, i, h, ih0, ih1, got[i], want[i])
					}
				}
			}
		}
	}
}
