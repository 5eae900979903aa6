package equiv

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/vnncomp"
	"github.com/nnbound/nnbound/vnnlib"
)

// testPair returns f, a 2-3-1 ReLU network, and g: f with its hidden
// neurons in another order and 0.1 added to the output, so that
// g(x) - f(x) = 0.1 on every input.
func testPair() (f, g *nn.Network) {
	relu := nn.Activation{Kind: nn.ReLU}
	w1 := []float64{1, -1, 0.5, 2, -1, 1}
	b1 := []float64{0.1, -0.2, 0.3}
	w2 := []float64{1, -2, 0.5}
	f = &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(3, 2, w1), B: b1, Act: relu},
		nn.AffineLayer(mat.NewDense(1, 3, w2), []float64{0}),
	}}
	perm := []int{2, 0, 1}
	pw1 := make([]float64, 6)
	pb1 := make([]float64, 3)
	pw2 := make([]float64, 3)
	for i, j := range perm {
		copy(pw1[2*i:2*i+2], w1[2*j:2*j+2])
		pb1[i], pw2[i] = b1[j], w2[j]
	}
	g = &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(3, 2, pw1), B: pb1, Act: relu},
		nn.AffineLayer(mat.NewDense(1, 3, pw2), []float64{0.1}),
	}}
	return f, g
}

// property is a VNN-LIB 2.0 property on [0, 1]^2 with lo <= Y_g - Y_f <= hi.
func property(lo, hi float64) string {
	c := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return `(vnnlib-version <2.0>)
(declare-network f (declare-input X_f float32 [2]) (declare-output Y_f float32 [1]))
(declare-network g (isomorphic-to f) (declare-input X_g float32 [2]) (declare-output Y_g float32 [1]))
(assert (and (>= X_f[0] 0.0) (<= X_f[0] 1.0) (>= X_f[1] 0.0) (<= X_f[1] 1.0)))
(assert (and (== X_f[0] X_g[0]) (== X_f[1] X_g[1])))
(assert (and (<= Y_g[0] (+ Y_f[0] ` + c(hi) + `)) (>= Y_g[0] (+ Y_f[0] ` + c(lo) + `))))
`
}

func writeFile(t *testing.T, path string, write func(*os.File) error) {
	t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(fh); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRunEndToEnd runs a generated instance set through vnncomp.Run with
// the decider: an asymmetric property that holds, one that is violated
// (its witness checked on the networks), a row naming a missing file, a
// property declaring more inputs than the networks take, and a second run
// that resumes.
func TestRunEndToEnd(t *testing.T) {
	dir := t.TempDir()
	f, g := testPair()
	for name, net := range map[string]*nn.Network{"f.onnx": f, "g.onnx": g} {
		writeFile(t, filepath.Join(dir, name), func(w *os.File) error { return onnx.Write(w, net) })
	}
	// wide.vnnlib declares 3 inputs for these 2-input networks.
	wide := strings.NewReplacer("[2]", "[3]", "(<= X_f[1] 1.0)", "(<= X_f[1] 1.0) (>= X_f[2] 0.0) (<= X_f[2] 1.0)",
		"(== X_f[1] X_g[1])", "(== X_f[1] X_g[1]) (== X_f[2] X_g[2])").Replace(property(0.05, 0.2))
	specs := map[string]string{"holds.vnnlib": property(0.05, 0.2), "violated.vnnlib": property(-0.05, 0.05), "wide.vnnlib": wide}
	for name, text := range specs {
		writeFile(t, filepath.Join(dir, name), func(w *os.File) error { _, err := w.WriteString(text); return err })
	}
	csv := `"[('f', 'f.onnx'), ('g', 'g.onnx')]",holds.vnnlib,30
"[('f', 'f.onnx'), ('g', 'g.onnx')]",violated.vnnlib,30
"[('f', 'f.onnx'), ('g', 'missing.onnx')]",holds.vnnlib,30
"[('f', 'f.onnx'), ('g', 'g.onnx')]",wide.vnnlib,30
`
	inst := filepath.Join(dir, "instances.csv")
	writeFile(t, inst, func(w *os.File) error { _, err := w.WriteString(csv); return err })
	out := filepath.Join(dir, "out")
	decide := Decider(DefaultOptions())

	sum, err := vnncomp.Run(context.Background(), inst, decide, vnncomp.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts[vnncomp.Unsat] != 1 || sum.Counts[vnncomp.Sat] != 1 || sum.Counts[vnncomp.Error] != 2 {
		t.Fatalf("first run: %v", sum.Counts)
	}
	rows, err := vnncomp.ReadInstances(inst)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"unsat", "sat", "", ""} {
		b, err := os.ReadFile(filepath.Join(out, vnncomp.ResultFile(rows[i].Instance)))
		if want == "" {
			if err == nil {
				t.Errorf("row %d: a result file for a row in error", i)
			}
			continue
		}
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if lines[0] != want {
			t.Errorf("row %d: %q, want %s", i, lines[0], want)
		}
		if want == "sat" {
			checkWitness(t, lines, f, g, specs["violated.vnnlib"])
		}
	}

	sum, err = vnncomp.Run(context.Background(), inst, decide, vnncomp.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Resumed[vnncomp.Unsat] != 1 || sum.Resumed[vnncomp.Sat] != 1 || sum.Counts[vnncomp.Error] != 2 || len(sum.Counts) != 1 {
		t.Errorf("resumed run: counts %v, resumed %v", sum.Counts, sum.Resumed)
	}
}

// checkWitness reads the witness X_f, Y_f, X_g, Y_g of a sat file and
// checks, without trusting the decider, that f and g at X_f violate the
// property.
func checkWitness(t *testing.T, lines []string, f, g *nn.Network, text string) {
	t.Helper()
	want := []string{"X_f float32 [2]", "Y_f float32 [1]", "X_g float32 [2]", "Y_g float32 [1]"}
	var vals [][]float64
	i := 1
	for _, head := range want {
		if i >= len(lines) || lines[i] != head {
			t.Fatalf("witness: want %q at line %d in %q", head, i+1, lines)
		}
		n := 2
		if strings.HasPrefix(head, "Y") {
			n = 1
		}
		var v []float64
		for _, s := range lines[i+1 : i+1+n] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			v = append(v, x)
		}
		vals = append(vals, v)
		i += 1 + n
	}
	p, err := vnnlib.ReadPair(strings.NewReader(text), "violated.vnnlib")
	if err != nil {
		t.Fatal(err)
	}
	x := vals[0]
	if !p.Box.Contains(x) || vals[2][0] != x[0] || vals[2][1] != x[1] {
		t.Fatalf("witness input %v, %v", x, vals[2])
	}
	yf, _ := f.Eval(x)
	yg, _ := g.Eval(x)
	if bad, _ := p.Violated(yf, yg); !bad {
		t.Errorf("witness x = %v: f = %v, g = %v do not violate the property", x, yf, yg)
	}
}

// TestVeriPrune decides one shared VeriPrune pair that the root's attack
// refutes (ACAS Xu 1_1 and its 10 %-pruned copy at eps 0.05).
func TestVeriPrune(t *testing.T) {
	root := sharedtest.Path(t, "data", "benchmarks", "veriprune")
	dir := t.TempDir()
	csv := `"[('f', '` + filepath.Join(root, "onnx", "nets", "ACASXU_run2a_1_1_batch_2000.onnx") +
		`'), ('g', '` + filepath.Join(root, "onnx", "nets_pruned", "ACASXU_run2a_1_1_batch_2000_pruned10.onnx") +
		`')]",` + filepath.Join(root, "equivalence_eps0.05.vnnlib") + ",100\n"
	inst := filepath.Join(dir, "instances.csv")
	writeFile(t, inst, func(w *os.File) error { _, err := w.WriteString(csv); return err })
	opts := DefaultOptions()
	opts.Verify.MaxNodes = 1 // the root: no result may depend on the clock
	var log bytes.Buffer
	sum, err := vnncomp.Run(context.Background(), inst, Decider(opts), vnncomp.Options{Dir: filepath.Join(dir, "out"), Report: &log})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts[vnncomp.Sat] != 1 {
		t.Errorf("counts %v: %s", sum.Counts, log.String())
	}
}
