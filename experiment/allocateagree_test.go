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
	if _, ok := judged[widthsName(got)]; !ok {
		t.Errorf("the allocation %v was never judged", got)
	}
	if _, err := (&AgreementAllocation{Widths: []int{2}, Target: 1.5}).Run(context.Background(), core, identity, judge); err == nil {
		t.Errorf("a target above 1 is accepted")
	}
	if r, err := (&AgreementAllocation{Widths: []int{2, 3}, Target: 1}).Run(context.Background(), core, identity, judge); err != nil || r.Met() {
		t.Errorf("widths below the need: met %v, %v", r.Met(), err)
	}
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
