package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
)

// graphPairSpec is a VNN-LIB 2.0 equivalence property of two 64-input,
// 10-output networks: inputs 0 to 3 in [0.49, 0.51], the others 0.5, and
// lo <= Y_g[k] - Y_f[k] <= hi for every output k.
func graphPairSpec(lo, hi float64) string {
	var box, same, outs []string
	for i := range 64 {
		a, b := 0.5, 0.5
		if i < 4 {
			a, b = 0.49, 0.51
		}
		box = append(box, fmt.Sprintf("(>= X_f[%d] %v) (<= X_f[%d] %v)", i, a, i, b))
		same = append(same, fmt.Sprintf("(== X_f[%d] X_g[%d])", i, i))
	}
	for k := range 10 {
		outs = append(outs, fmt.Sprintf("(<= Y_g[%d] (+ Y_f[%d] %v)) (>= Y_g[%d] (+ Y_f[%d] %v))", k, k, hi, k, k, lo))
	}
	return `(vnnlib-version <2.0>)
(declare-network f (declare-input X_f float32 [64]) (declare-output Y_f float32 [10]))
(declare-network g (isomorphic-to f) (declare-input X_g float32 [64]) (declare-output Y_g float32 [10]))
(assert (and ` + strings.Join(box, " ") + `))
(assert (and ` + strings.Join(same, " ") + `))
(assert (and ` + strings.Join(outs, " ") + `))
`
}

// TestVnncompGraph runs a VNN-COMP benchmark of a residual graph pair (f
// the repository's digits_resid, g f with 0.1 added to every output) made
// by the test: verify and vnncomp decide each property the same way (an
// asymmetric range that holds, one that is violated), the sat witness is
// evaluated again through the graphs, and run-instance decides a graph
// instance too.
func TestVnncompGraph(t *testing.T) {
	const digitsResid = "../../testdata/graphs/digits_resid.onnx"
	dir := t.TempDir()
	f := loadTestGraph(t, digitsResid)
	g := f.Clone()
	last := g.Nodes[len(g.Nodes)-1].Op.(*nn.Affine)
	for k := range last.B {
		last.B[k] += 0.1
	}
	gPath := filepath.Join(dir, "g.onnx")
	if err := modelfile.SaveGraph(gPath, g); err != nil {
		t.Fatal(err)
	}
	g = loadTestGraph(t, gPath) // as vnncomp reads it
	fPath, err := filepath.Abs(digitsResid)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]string{"holds.vnnlib": graphPairSpec(0.05, 0.2), "violated.vnnlib": graphPairSpec(-0.05, 0.05)}
	var csv strings.Builder
	for _, name := range []string{"holds.vnnlib", "violated.vnnlib"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(specs[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&csv, "\"[('f', '%s'), ('g', 'g.onnx')]\",%s,60\n", fPath, name)
	}
	inst := filepath.Join(dir, "instances.csv")
	if err := os.WriteFile(inst, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	for name, want := range map[string]int{"holds.vnnlib": exitOK, "violated.vnnlib": exitFail} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"verify", fPath, gPath, "--vnnlib", filepath.Join(dir, name), "--max-nodes", "200", "--timeout", "0"}, &stdout, &stderr)
		verdict := map[int]string{exitOK: "holds", exitFail: "violated"}[want]
		if code != want || !strings.Contains(stdout.String(), "verdict   "+verdict) {
			t.Fatalf("verify %s: exit %d, want %s:\n%s%s", name, code, verdict, stdout.String(), stderr.String())
		}
	}

	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"vnncomp", inst, "--out", out, "--max-nodes", "200"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("vnncomp: exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, c := range []struct{ file, want string }{
		{"0000_digits_resid+g+holds.txt", "unsat"},
		{"0001_digits_resid+g+violated.txt", "sat"},
	} {
		b, err := os.ReadFile(filepath.Join(out, c.file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if lines[0] != c.want {
			t.Fatalf("%s: %q, want %s", c.file, lines[0], c.want)
		}
		if c.want == "sat" {
			checkGraphWitness(t, lines, f, g)
		}
	}

	res := filepath.Join(dir, "one.txt")
	stderr.Reset()
	args := []string{"vnncomp", "run-instance", fmt.Sprintf("[('f', '%s'), ('g', '%s')]", fPath, gPath), filepath.Join(dir, "holds.vnnlib"), res, "60", "--max-nodes", "200"}
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("run-instance: exit %d: %s", code, stderr.String())
	}
	if b, err := os.ReadFile(res); err != nil || strings.TrimSpace(string(b)) != "unsat" {
		t.Errorf("run-instance: %q (%v), want unsat", b, err)
	}
}

// checkGraphWitness reads the witness X_f, Y_f, X_g, Y_g of a sat file
// of graphPairSpec(-0.05, 0.05) and checks, without trusting the decider,
// that x lies in the box, that Y_f and Y_g are f and g at x (to float32)
// and that they violate the property.
func checkGraphWitness(t *testing.T, lines []string, f, g *nn.Graph) {
	t.Helper()
	var vals [][]float64
	i := 1
	for _, head := range []string{"X_f float32 [64]", "Y_f float32 [10]", "X_g float32 [64]", "Y_g float32 [10]"} {
		if i >= len(lines) || lines[i] != head {
			t.Fatalf("witness: want %q at line %d in %q", head, i+1, lines)
		}
		n := 64
		if head[0] == 'Y' {
			n = 10
		}
		var v []float64
		for _, s := range lines[i+1 : min(i+1+n, len(lines))] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			v = append(v, x)
		}
		vals = append(vals, v)
		i += 1 + n
	}
	x := vals[0]
	for j, v := range x {
		lo, hi := 0.5, 0.5
		if j < 4 {
			lo, hi = 0.49, 0.51
		}
		if v < float64(float32(lo)) || v > float64(float32(hi)) || vals[2][j] != v {
			t.Fatalf("witness input %d: X_f %v, X_g %v", j, v, vals[2][j])
		}
	}
	yf, err := f.Eval(x)
	if err != nil {
		t.Fatal(err)
	}
	yg, err := g.Eval(x)
	if err != nil {
		t.Fatal(err)
	}
	bad := false
	for k := range yf {
		if math.Abs(yf[k]-vals[1][k]) > 1e-5*(1+math.Abs(yf[k])) || math.Abs(yg[k]-vals[3][k]) > 1e-5*(1+math.Abs(yg[k])) {
			t.Errorf("output %d: witness Y_f %v, Y_g %v; the graphs give %v, %v", k, vals[1][k], vals[3][k], yf[k], yg[k])
		}
		bad = bad || math.Abs(yg[k]-yf[k]) > 0.05
	}
	if !bad {
		t.Errorf("witness x = %v: f = %v, g = %v do not violate the property", x, yf, yg)
	}
}
