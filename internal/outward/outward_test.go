package outward

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestDirected checks the directed operations against exact big.Float
// arithmetic on random operands of many magnitudes, and that they move by
// at most one ulp away from the rounded result.
func TestDirected(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	exact := func(op byte, a, b float64) *big.Float {
		x, y := new(big.Float).SetPrec(2200).SetFloat64(a), new(big.Float).SetPrec(2200).SetFloat64(b)
		switch op {
		case '+':
			return x.Add(x, y)
		case '-':
			return x.Sub(x, y)
		}
		return x.Mul(x, y)
	}
	ops := []struct {
		op       byte
		down, up func(a, b float64) float64
	}{{'+', AddDown, AddUp}, {'-', SubDown, SubUp}, {'*', MulDown, MulUp}}
	for range 20000 {
		a := rng.NormFloat64() * math.Ldexp(1, rng.IntN(200)-100)
		b := rng.NormFloat64() * math.Ldexp(1, rng.IntN(200)-100)
		for _, o := range ops {
			e := exact(o.op, a, b)
			lo, hi := o.down(a, b), o.up(a, b)
			if new(big.Float).SetFloat64(lo).Cmp(e) > 0 || new(big.Float).SetFloat64(hi).Cmp(e) < 0 {
				t.Fatalf("%v %c %v: [%v, %v] misses the exact value", a, o.op, b, lo, hi)
			}
			r, _ := e.Float64()
			if hi > Up(r) || lo < Down(r) {
				t.Fatalf("%v %c %v: [%v, %v] wider than one ulp about %v", a, o.op, b, lo, hi, r)
			}
		}
	}
	if MulUp(0, math.Inf(1)) != math.Inf(1) || MulDown(0, math.Inf(1)) != math.Inf(-1) {
		t.Error("0 * Inf: want the infinity of the direction")
	}
	if AddUp(math.Inf(1), math.Inf(-1)) != math.Inf(1) || AddDown(math.Inf(1), math.Inf(-1)) != math.Inf(-1) {
		t.Error("Inf - Inf: want the infinity of the direction")
	}
	if AddUpStep(1, 0x1p-60) <= 1 || MulUpStep(0x1p-600, 0x1p-600) <= 0 {
		t.Error("AddUpStep, MulUpStep: not above the exact value")
	}
	if s := SqrtDown(2); s*s >= 2 || SqrtDown(0) != 0 {
		t.Errorf("SqrtDown(2)^2 = %v, want < 2; SqrtDown(0) = %v", s*s, SqrtDown(0))
	}
	if s := SqrtUp(2); s*s <= 2 {
		t.Errorf("SqrtUp(2)^2 = %v, want > 2", s*s)
	}
}
