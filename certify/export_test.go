package certify

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/sdp/sdpa"
	"github.com/nnbound/nnbound/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files of certify/testdata")

// TestExportGolden writes the root SDP (Problem) in SDPA format of a Table 1 instance with both QC
// sets and compares it with the files in testdata.
func TestExportGolden(t *testing.T) {
	f := randnet.Paper(101, 1, 1, 10, 1)
	for _, qcs := range []QCSet{QCPaper, QCDefault} {
		o := paperOptions(spec.Independent)
		o.QC = qcs
		p, err := o.problem(f, f, paperBox)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := sdpa.Write(&buf, p.Problem); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "table1-l1-"+qcs.String()+".dat-s")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: export differs from the golden file (rerun with -update if intended)", path)
		}
	}
}

// TestProblemNoDebris checks that the root SDP carries no entry that is
// negligible beside the largest of its matrix, no factor component
// negligible beside the largest of its vector, and no row of the LMI that
// no constraint touches, on instances with dead neurons and neurons that
// are zero at the edge of the box (Table 1 and 2 at l = 1, 2).
func TestProblemNoDebris(t *testing.T) {
	negligibleIn := func(vs []float64) (float64, float64, bool) {
		big := 0.0
		for _, v := range vs {
			big = max(big, math.Abs(v))
		}
		for _, v := range vs {
			if math.Abs(v) <= 1e-30*big {
				return v, big, true
			}
		}
		return 0, 0, false
	}
	for _, pc := range seededPairs(t)[:4] {
		p, err := pc.opts.problem(pc.f1, pc.f2, paperBox)
		if err != nil {
			t.Fatal(err)
		}
		touched := make([]bool, p.Blocks[0].Size)
		for i := range p.F {
			var vs []float64
			for _, e := range p.F[i] {
				vs = append(vs, e.V)
				if i > 0 && e.Block == 0 {
					touched[e.I], touched[e.J] = true, true
				}
			}
			if v, big, ok := negligibleIn(vs); ok {
				t.Errorf("%s: F%d has an entry %g beside %g", pc.name, i, v, big)
			}
			for _, f := range p.Factors[i] {
				if v, big, ok := negligibleIn(f.U.Value); ok {
					t.Errorf("%s: a factor of F%d has a component %g beside %g", pc.name, i, v, big)
				}
				for _, c := range f.U.Index {
					touched[c] = touched[c] || f.Block == 0
				}
			}
		}
		for c, ok := range touched {
			if !ok {
				t.Errorf("%s: no constraint touches row %d of the LMI", pc.name, c)
			}
		}
	}
}

// TestProblemGammaNames checks the names of the leading variables of the
// root SDP: gamma_x2 and gamma_x are left out when x2 = x1, and the objective weighs
// exactly the named variables.
func TestProblemGammaNames(t *testing.T) {
	f := randnet.Paper(101, 1, 1, 10, 1)
	cases := []struct {
		pairing spec.Pairing
		want    []string
	}{
		{spec.Independent, []string{"gamma", "gamma_x1", "gamma_x2", "gamma_x"}},
		{spec.SameInput, []string{"gamma", "gamma_x1"}},
		{spec.QuantisedInput, []string{"gamma", "gamma_x1", "gamma_x2", "gamma_x"}},
	}
	for _, tc := range cases {
		p, err := paperOptions(tc.pairing).problem(f, f, paperBox)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.GammaNames, tc.want) {
			t.Errorf("%v: GammaNames %q, want %q", tc.pairing, p.GammaNames, tc.want)
		}
		for i, c := range p.C {
			if (i < len(p.GammaNames)) != (c > 0) {
				t.Errorf("%v: objective weight %g of variable %d", tc.pairing, c, i)
			}
		}
		if tc.pairing == spec.SameInput {
			if got := p.GammaNote(SDPA); got != "gamma = y[1], gamma_x1 = y[2]" {
				t.Errorf("SDPA note %q", got)
			}
			if got := p.GammaNote(CBF); got != "gamma = x[0], gamma_x1 = x[1]" {
				t.Errorf("CBF note %q", got)
			}
			var b bytes.Buffer
			if err := p.Write(&b, CBF, []string{"head"}); err != nil || !bytes.HasPrefix(b.Bytes(), []byte("# head\nVER\n3\n")) {
				t.Errorf("CBF: %v, %.20q", err, b.String())
			}
		}
	}
}
