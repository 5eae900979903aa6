package quantise

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestInt8WeightBits: with WeightBits, each layer's weights are integers
// of its own width times their scale, the activations keep Bits, and a
// layer at Bits is the layer of the uniform copy.
func TestInt8WeightBits(t *testing.T) {
	net := tinyNet()
	r := Ranges{Input: [2]float64{-1, 1}, Pre: [][2]float64{{-9, 9}, {-30, 40}}}
	for _, perChannel := range []bool{false, true} {
		o := Int8Options{Bits: 8, PerChannel: perChannel}
		uniform, err := Int8(net, r, o)
		if err != nil {
			t.Fatal(err)
		}
		o.WeightBits = []int{4, 8}
		mixed, err := Int8(net, r, o)
		if err != nil {
			t.Fatal(err)
		}
		for k, bits := range o.WeightBits {
			l := mixed.Layers[k]
			half := float64(int64(1)<<(bits-1) - 1)
			rows, cols := l.W.Dims()
			for i := range rows {
				s, _ := l.Int.Weight.At(i)
				for j := range cols {
					v := l.W.At(i, j) / s
					if v != math.Round(v) || math.Abs(v) > half {
						t.Errorf("per-channel %v, layer %d: weight %v is %v steps, want an integer in [-%v, %v]", perChannel, k, l.W.At(i, j), v, half, half)
					}
				}
			}
			if !l.Pre.Equal(uniform.Layers[k].Pre) {
				t.Errorf("per-channel %v, layer %d: activations %v, want %v", perChannel, k, l.Pre, uniform.Layers[k].Pre)
			}
		}
		if a, b := mixed.Layers[1], uniform.Layers[1]; !mat.Equal(a.W, b.W) || !slices.Equal(a.B, b.B) || !a.Int.Weight.Equal(b.Int.Weight) {
			t.Errorf("per-channel %v: the int8 layer differs from the uniform copy's", perChannel)
		}
	}
	for _, bad := range [][]int{{4}, {4, 9}, {1, 8}} {
		if _, err := Int8(net, r, Int8Options{Bits: 8, WeightBits: bad}); err == nil {
			t.Errorf("WeightBits %v: no error", bad)
		}
	}
}
