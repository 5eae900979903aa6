package experiment

import (
	"context"
	"io"
	"testing"

	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/spec"
)

// TestInstance checks the pairing and the networks of each experiment,
// and that run r at depth l uses the network of seed S + 1000 l + r.
func TestInstance(t *testing.T) {
	cases := []struct {
		exp     Paper
		pairing spec.Pairing
		same    bool // f2 is f1
	}{
		{Table1, spec.Independent, true},
		{Table2, spec.QuantisedInput, false},
		{Sweep, spec.QuantisedInput, false},
		{Prune, spec.SameInput, false},
	}
	for _, tc := range cases {
		s := Setup{Exp: tc.exp, Seed: 7, Opts: certjob.Default()}
		tasks := Tasks(tc.exp, []int{1, 3}, 2)
		f1, f2, o, err := s.Instance(tasks[len(tasks)-1])
		if err != nil {
			t.Fatalf("%v: %v", tc.exp, err)
		}
		if o.Pairing != tc.pairing || (f1 == f2) != tc.same {
			t.Errorf("%v: pairing %v, same network %v", tc.exp, o.Pairing, f1 == f2)
		}
		if got, want := f1.Sizes(), []int{1, Width, Width, Width, 1}; tc.exp == Table1 && len(got) != len(want) {
			t.Errorf("%v: sizes %v, want %v", tc.exp, got, want)
		}
	}
	if NetSeed(7, 3, 1) != 3008 {
		t.Errorf("NetSeed(7, 3, 1) = %d, want 3008", NetSeed(7, 3, 1))
	}
	if n := len(Tasks(Sweep, []int{1, 2, 3}, 4)); n != 20 {
		t.Errorf("sweep: %d tasks, want 5 widths x 4 runs", n)
	}
}

// TestCertifyTightness certifies two Table 2 runs and checks that T is
// never negative on the grid (the bound holds at every grid point), then
// that Aggregate counts them in one row.
func TestCertifyTightness(t *testing.T) {
	o := certjob.Default()
	o.Refine.TimeBudget = 0
	s := Setup{Exp: Table2, Seed: 1, Opts: o}
	tasks := Tasks(Table2, []int{1}, 2)
	runs, certs, err := s.CertifyAll(context.Background(), tasks, 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		if !certs[i].Certified() {
			t.Fatalf("run %d not certified: %s", i, certs[i].Reason)
		}
		if !(r.TMin >= 0) || !(r.TMean >= r.TMin) || !(r.TMax >= r.TMean) {
			t.Errorf("run %d: T min %v, mean %v, max %v", i, r.TMin, r.TMean, r.TMax)
		}
	}
	rows := Aggregate(Table2, runs)
	if len(rows) != 1 || rows[0].Certified != 2 || rows[0].Runs != 2 || rows[0].Layers != 1 {
		t.Errorf("rows %+v, want one row of 2 certified runs at l = 1", rows)
	}
}
