package quantise

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/nnet"
)

// half decodes the IEEE binary16 bit pattern h, independently of
// RoundFloat16.
func half(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * math.Ldexp(m, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1024+m, e-25)
}

// TestRoundFloat16Exhaustive checks every half value, every midpoint between
// neighbours (ties to even) and the float64 neighbours of every midpoint.
func TestRoundFloat16Exhaustive(t *testing.T) {
	for h := range uint16(0x7c00) { // all finite non-negative halves
		v := half(h)
		for _, s := range []float64{1, -1} {
			if got := RoundFloat16(s * v); got != s*v || math.Signbit(got) != (s < 0) {
				t.Fatalf("RoundFloat16(%v) = %v", s*v, got)
			}
		}
		next := half(h + 1) // for h = 0x7bff this is +Inf
		if h == 0x7bff {
			next = 65536 // where the next binade would start
		}
		mid := (v + next) / 2
		even := v
		if h&1 == 1 {
			even = next
		}
		if h == 0x7bff {
			even = math.Inf(1)
		}
		for _, s := range []float64{1, -1} {
			if got := RoundFloat16(s * mid); got != s*even {
				t.Fatalf("RoundFloat16(%v) = %v, want %v (tie to even)", s*mid, got, s*even)
			}
			below, above := math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1))
			if got := RoundFloat16(s * below); got != s*v {
				t.Fatalf("RoundFloat16(%v) = %v, want %v", s*below, got, s*v)
			}
			wantAbove := next
			if h == 0x7bff {
				wantAbove = math.Inf(1)
			}
			if got := RoundFloat16(s * above); got != s*wantAbove {
				t.Fatalf("RoundFloat16(%v) = %v, want %v", s*above, got, s*wantAbove)
			}
		}
	}
	for _, tc := range []struct{ x, want float64 }{
		{math.Ldexp(1, -25), 0}, // tie between 0 and the smallest subnormal
		{math.Nextafter(math.Ldexp(1, -25), 1), math.Ldexp(1, -24)}, // just above it
		{5e-324, 0},
		{1e300, math.Inf(1)},
		{-70000, math.Inf(-1)},
		{65519.99, 65504},
		{0.1, 0.0999755859375},
		{math.Inf(-1), math.Inf(-1)},
	} {
		if got := RoundFloat16(tc.x); got != tc.want {
			t.Errorf("RoundFloat16(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if !math.IsNaN(RoundFloat16(math.NaN())) {
		t.Error("NaN not kept")
	}
	if !math.Signbit(RoundFloat16(-1e-10)) {
		t.Error("sign of an underflow to zero lost")
	}
}

func TestFloat16Overflow(t *testing.T) {
	net := tinyNet()
	net.Layers[1].W.Set(0, 1, 70000)
	_, err := Float16(net)
	if err == nil || !isRange(err) {
		t.Fatalf("err = %v, want ErrRange", err)
	}
	if want := "layer 1 weight (0,1) = 70000 overflows float16"; !contains(err, want) {
		t.Errorf("err = %v, want it to contain %q", err, want)
	}
}

// TestFloat16Benchmarks reproduces the exact float16 copies of the peers'
// benchmark networks from their originals.
func TestFloat16Benchmarks(t *testing.T) {
	dir := sharedtest.Path(t, "data", "benchmarks")
	type pair struct{ orig, f16 string }
	var pairs []pair
	for i := 1; i <= 5; i++ {
		for j := 1; j <= 9; j++ {
			name := fmt.Sprintf("ACASXU_run2a_%d_%d_batch_2000", i, j)
			pairs = append(pairs, pair{
				filepath.Join(dir, "acasxu-f16", "nnet", name+".nnet"),
				filepath.Join(dir, "acasxu-f16", "compressed_nnets_f16exact", name+"_16bit.nnet"),
			})
		}
	}
	pairs = append(pairs,
		pair{filepath.Join(dir, "har", "HAR.nnet"), filepath.Join(dir, "har", "HAR_16bit.nnet")},
		pair{filepath.Join(dir, "mnist", "mnist_relu_3_100.nnet"), filepath.Join(dir, "mnist", "mnist_relu_3_100_16bit.nnet")},
	)
	for _, p := range pairs {
		orig, _, err := nnet.Read(p.orig, nnet.Options{Core: true})
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := nnet.Read(p.f16, nnet.Options{Core: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Float16(orig)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := nn.ParamDiff(want, got); err != nil || d.Changed != 0 {
			t.Errorf("%s: %+v %v", filepath.Base(p.f16), d, err)
		}
	}
	t.Logf("%d networks reproduced", len(pairs))
}
