package experiment

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
)

// TestAgreementAllocation runs the greedy search against a judge whose
// answer is known (10 balls, all certified when layer k has at least
// need[k] fractional bits, 5 otherwise) and checks the allocation, that
// every copy it reports was judged and is quantised as its table says,
// and that each copy was judged once.
func TestAgreementAllocation(t *testing.T) {
	core := randnet.Paper(3, 2, 2, 8, 3)
	need := []int{3, 5, 2}
	judged := map[string]int{}
	judge := func(_ context.Context, c *nn.Network, name string) (int, int, error) {
		judged[name]++
		fields := strings.Split(strings.TrimPrefix(name, "fb-"), "-")
		agreed := 10
		for k, l := range c.Layers {
			fb, err := strconv.Atoi(fields[k])
			if err != nil {
				return 0, 0, err
			}
			if !allOnGrid(l, fb) {
				t.Fatalf("%s: layer %d is not on the grid of %d fractional bits", name, k, fb)
			}
			if fb < need[k] {
				agreed = 5
			}
		}
		return agreed, 10, nil
	}
	a := &AgreementAllocation{Widths: []int{2, 3, 4, 5, 6, 7, 8}, Target: 0.95, Starts: 2}
	r, err := a.Run(context.Background(), core, identity, judge)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Met() || r.Single.FracBits[0] != 5 || r.Agreed != 10 || r.Samples != 10 {
		t.Fatalf("met %v, single %+v, agreed %d of %d", r.Met(), r.Single, r.Agreed, r.Samples)
	}
	var got []int
	for _, l := range r.Layers {
		got = append(got, l.FracBits)
	}
	if !reflect.DeepEqual(got, need) {
		t.Errorf("allocation %v, want %v", got, need)
	}
	if r.TotalBits != TotalBits(r.Layers) || r.TotalBits >= r.Single.Bits {
		t.Errorf("total %d (layers add to %d), single %d", r.TotalBits, TotalBits(r.Layers), r.Single.Bits)
	}
	for name, n := range judged {
		if n != 1 {
			t.Errorf("%s judged %d times", name, n)
		}
	}
	if r.Candidates != len(judged) {
		t.Errorf("%d candidates reported, %d judged", r.Candidates, len(judged))
	}
	if _, ok := judged[widthsName("fb", got)]; !ok {
		t.Errorf("the allocation %v was never judged", got)
	}
	if _, err := (&AgreementAllocation{Widths: []int{2}, Target: 1.5}).Run(context.Background(), core, identity, judge); err == nil {
		t.Errorf("a target above 1 is accepted")
	}
	if r, err := (&AgreementAllocation{Widths: []int{2, 3}, Target: 1}).Run(context.Background(), core, identity, judge); err != nil || r.Met() {
		t.Errorf("widths below the need: met %v, %v", r.Met(), err)
	}
}

// TestAgreementAllocationInt8: with int8 copies, a judge that agrees on
// every ball when layer k's weights have at least need[k] bits (read off
// the copy: integers times their scale) leads the descent from int8
// everywhere to exactly need, each copy judged once.
func TestAgreementAllocationInt8(t *testing.T) {
	core := randnet.Paper(3, 2, 2, 8, 1)
	need := []int{8, 4, 4}
	judged := map[string]int{}
	judge := func(_ context.Context, c *nn.Network, name string) (int, int, error) {
		judged[name]++
		for k, l := range c.Layers {
			if weightBits(l) < need[k] {
				return 5, 10, nil
			}
		}
		return 10, 10, nil
	}
	xs := [][]float64{{-1, -1}, {1, 1}, {0.5, -0.3}}
	a := &AgreementAllocation{Widths: []int{4, 8}, Target: 0.95, Starts: 1, Int8: &quantise.Int8Options{Bits: 8, PerChannel: true}, Calibration: xs}
	r, err := a.Run(context.Background(), core, identity, judge)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, l := range r.Layers {
		got = append(got, l.WeightBits)
	}
	if !r.Met() || r.Scheme == "" || !reflect.DeepEqual(got, need) || r.Single.FracBits[0] != 8 {
		t.Fatalf("met %v, scheme %q, allocation %v (want %v), single %+v", r.Met(), r.Scheme, got, need, r.Single)
	}
	if _, ok := judged[widthsName("w", need)]; !ok || len(judged) != r.Candidates {
		t.Errorf("judged %v, %d candidates", judged, r.Candidates)
	}
	if _, err := (&AgreementAllocation{Widths: []int{8}, Target: 1, Int8: a.Int8}).Run(context.Background(), core, identity, judge); err == nil {
		t.Errorf("an int8 allocation without calibration inputs is accepted")
	}
}

// weightBits returns the fewest bits of symmetric integers holding the
// weights of the int8 layer l (each a multiple of its row's scale).
func weightBits(l nn.Layer) int {
	peak := 0.0
	rows, cols := l.W.Dims()
	for i := range rows {
		s, _ := l.Int.Weight.At(i)
		for j := range cols {
			peak = max(peak, math.Abs(l.W.At(i, j)/s))
		}
	}
	b := 2
	for float64(int(1)<<(b-1)-1) < peak {
		b++
	}
	return b
}

// allOnGrid reports whether every parameter of l is a multiple of 2^-fb
// (a copy with fb fractional bits or fewer).
func allOnGrid(l nn.Layer, fb int) bool {
	for _, v := range append(append([]float64(nil), l.W.RawMatrix().Data...), l.B...) {
		if s := math.Ldexp(v, fb); s != math.Trunc(s) {
			return false
		}
	}
	return true
}
