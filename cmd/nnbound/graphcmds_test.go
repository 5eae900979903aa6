package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
)

// Graph models of the repository's testdata used by the command tests.
const (
	mobilenetBlock  = "../../testdata/graphs/mobilenet_block.onnx"  // 4x6x6 input, residual Add, depthwise conv
	inceptionConcat = "../../testdata/graphs/inception_concat.onnx" // 3x8x8 input, Concat, MaxPool
	digitsResCNN    = "../../testdata/graphs/digits_rescnn.onnx"    // 1x8x8 input, projection skip
	maxpoolNet      = "../../testdata/graphs/maxpool_net.onnx"      // MaxPool
)

// loadTestGraph reads the graph at path.
func loadTestGraph(t *testing.T, path string) *nn.Graph {
	t.Helper()
	g, _, _, err := modelfile.LoadGraph(path, modelfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// checkBoundSampled evaluates f at 300 random points of [lo, hi]^n and
// their box corners and g at x2 (the point itself, or it quantised to
// inFB fractional bits, trunc, when inFB > 0) and fails if
// ||f(x) - g(x2)||_2 exceeds bound: an independent check of a certified
// bound that trusts neither the certifier nor its search.
func checkBoundSampled(t *testing.T, f, g *nn.Graph, lo, hi float64, inFB int, bound float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	q := quantise.Format{FracBits: inFB}
	n := f.InputSize()
	worst := 0.0
	for k := range 302 {
		x := make([]float64, n)
		for i := range x {
			switch k {
			case 0:
				x[i] = lo
			case 1:
				x[i] = hi
			default:
				x[i] = lo + (hi-lo)*rng.Float64()
			}
		}
		x2 := x
		if inFB > 0 {
			x2 = make([]float64, n)
			for i, v := range x {
				x2[i], _ = q.Quantise(v)
			}
		}
		y1, err := f.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		y2, err := g.Eval(x2)
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for i := range y1 {
			s += (y1[i] - y2[i]) * (y1[i] - y2[i])
		}
		worst = max(worst, math.Sqrt(s))
	}
	if !(worst <= bound) {
		t.Errorf("sampled difference %g exceeds the certified bound %g", worst, bound)
	}
	if worst == 0 {
		t.Errorf("the copy equals the model at every sample: nothing was tested")
	}
}

// certJSON is what the graph tests read of a certificate's JSON.
type certJSON struct {
	Certified bool    `json:"certified"`
	Bound     float64 `json:"bound"`
	Observed  float64 `json:"observed_error"`
	Input     struct {
		Pairing   string `json:"pairing"`
		FracBits  int    `json:"frac_bits"`
		Quantiser string `json:"quantiser"`
	} `json:"input"`
}

// TestComparePairingQuantisedGraph checks that --pairing quantised gives
// a graph copy's input quantiser the copy's width (it had 0 fractional
// bits), and that the bound holds at sampled points with x2 = q(x1).
func TestComparePairingQuantisedGraph(t *testing.T) {
	dir := t.TempDir()
	q6 := filepath.Join(dir, "q6.onnx")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"quantise", mobilenetBlock, "--frac-bits", "6", "--save", q6}, &stdout, &stderr); code != exitOK {
		t.Fatalf("quantise: exit %d: %s", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	args := []string{"compare", mobilenetBlock, q6, "--pairing", "quantised", "--lo", "0", "--hi", "1",
		"--max-pieces", "1", "--samples", "50", "--timeout", "0", "--json"}
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("compare: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "with 6 fractional bits") {
		t.Errorf("no note of the copy's width on stderr: %q", stderr.String())
	}
	var c certJSON
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if !c.Certified || c.Input.Pairing != "quantised" || c.Input.FracBits != 6 || c.Input.Quantiser != "<inf,6> trunc" {
		t.Fatalf("certified %v, input %+v; want certified, quantised to <inf,6> trunc", c.Certified, c.Input)
	}
	checkBoundSampled(t, loadTestGraph(t, mobilenetBlock), loadTestGraph(t, q6), 0, 1, 6, c.Bound)
}

// TestPruneGraph prunes graph networks (a residual Add, a depthwise
// convolution; a projection skip): magnitude pruning certified, with the
// bound checked at sampled points of the saved copy; channels removed
// where they reach the next convolution through per-channel operations;
// and one line naming the node where they cannot be removed.
func TestPruneGraph(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.onnx")
	var stdout, stderr bytes.Buffer
	args := []string{"prune", mobilenetBlock, "--sparsity", "0.5", "--save", out, "--certify", "--lo", "0", "--hi", "1",
		"--max-pieces", "1", "--samples", "50", "--timeout", "0", "--json"}
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("prune --sparsity: exit %d: %s", code, stderr.String())
	}
	var c struct {
		certJSON
		Compression struct {
			Changed int `json:"changed"`
			Zeroed  int `json:"zeroed"`
		} `json:"compression"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if !c.Certified || c.Compression.Zeroed < 800 || c.Compression.Zeroed != c.Compression.Changed {
		t.Fatalf("certified %v, compression %+v", c.Certified, c.Compression)
	}
	checkBoundSampled(t, loadTestGraph(t, mobilenetBlock), loadTestGraph(t, out), 0, 1, 0, c.Bound)

	stdout.Reset()
	stderr.Reset()
	args = []string{"prune", digitsResCNN, "--neurons", "2", "--remove", "--save", out, "--json"}
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("prune --remove: exit %d: %s", code, stderr.String())
	}
	var r struct {
		Parameters, Compressed int
		Pruned                 []struct{ Layer, Neuron int } `json:"pruned_neurons"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil || len(r.Pruned) != 2 {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	g, p := loadTestGraph(t, digitsResCNN), loadTestGraph(t, out)
	if p.NumParams() >= g.NumParams() || p.OutputSize() != 10 {
		t.Errorf("removing 2 channels: %d parameters, %d outputs (model %d)", p.NumParams(), p.OutputSize(), g.NumParams())
	}

	stdout.Reset()
	stderr.Reset()
	args = []string{"prune", mobilenetBlock, "--neurons", "2", "--remove", "--save", out}
	code := run(args, &stdout, &stderr)
	if code != exitUsage || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), `"/Add" (add)`) {
		t.Errorf("removal through the residual Add: exit %d, stderr %q", code, stderr.String())
	}
}

// TestSweepGraph sweeps a graph network (residual Add, depthwise
// convolution) with both pairings, checks each row's bound at sampled
// points of the copy quantise makes at that width, and the copy
// --save-best writes; int8 copies of a graph are one usage line.
func TestSweepGraph(t *testing.T) {
	dir := t.TempDir()
	g := loadTestGraph(t, mobilenetBlock)
	for _, pairing := range []string{"same", "quantised"} {
		best := filepath.Join(dir, "best-"+pairing+".onnx")
		var stdout, stderr bytes.Buffer
		args := []string{"sweep", mobilenetBlock, "--frac-bits", "5,9", "--lo", "0", "--hi", "1", "--pairing", pairing,
			"--max-pieces", "1", "--samples", "50", "--timeout", "0", "--json", "--target-error", "5", "--save-best", best}
		if code := run(args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%s: exit %d: %s", pairing, code, stderr.String())
		}
		var j struct {
			Rows []struct {
				FracBits  int     `json:"frac_bits"`
				Certified bool    `json:"certified"`
				Bound     float64 `json:"bound"`
			} `json:"rows"`
			Smallest []struct {
				FracBits int `json:"frac_bits"`
			} `json:"smallest"`
			Saved string `json:"saved"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &j); err != nil {
			t.Fatalf("%v\n%s", err, stdout.String())
		}
		if len(j.Rows) != 2 || j.Saved != best || len(j.Smallest) != 1 {
			t.Fatalf("%s: %+v", pairing, j)
		}
		inFB := func(fb int) int {
			if pairing == "quantised" {
				return fb
			}
			return 0
		}
		for _, r := range j.Rows {
			if !r.Certified {
				t.Fatalf("%s: FB %d not certified", pairing, r.FracBits)
			}
			q, err := quantise.Graph(g, quantise.Options{Weights: quantise.Format{FracBits: r.FracBits}, Biases: quantise.Format{FracBits: r.FracBits}})
			if err != nil {
				t.Fatal(err)
			}
			checkBoundSampled(t, g, q, 0, 1, inFB(r.FracBits), r.Bound)
			if r.FracBits == j.Smallest[0].FracBits {
				checkBoundSampled(t, g, loadTestGraph(t, best), 0, 1, inFB(r.FracBits), r.Bound)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"sweep", mobilenetBlock, "--scheme", "int8", "--plot", ""}, &stdout, &stderr)
	if code != exitUsage || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "is a graph") {
		t.Errorf("int8 sweep of a graph: exit %d, stderr %q", code, stderr.String())
	}
}

// TestChainOnlyCommandsOnGraphs checks that every command that reads
// chains of layers only refuses a graph with one line saying why and
// what takes graphs instead, and writes nothing.
func TestChainOnlyCommandsOnGraphs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.json")
	if err := writeFile(data, `{"inputs": [[`+strings.TrimSuffix(strings.Repeat("0.5,", 144), ",")+`]], "labels": [1]}`); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", mobilenetBlock, "--frac-bits", "4", "-o", out + ".dat-s"}, exitFail, "compare A B (or quantise A --frac-bits FB --certify) certifies graphs"},
		{[]string{"export", mobilenetBlock, mobilenetBlock, "-o", out + ".cbf"}, exitFail, "export writes the SDP of the paper"},
		{[]string{"agree", mobilenetBlock, mobilenetBlock, "--data", data, "--radius", "0.01"}, exitFail, "--epsilon E decides graph pairs"},
		{[]string{"allocate", mobilenetBlock, "--target-error", "1"}, exitFail, "sweep MODEL certifies graphs"},
		{[]string{"verify", mobilenetBlock, mobilenetBlock, "--property", "top1"}, exitFail, "--epsilon E decides graph pairs"},
		{[]string{"quantise", mobilenetBlock, "--scheme", "int8", "--save", out + ".onnx"}, exitFail, "graphs take quantise --frac-bits"},
		{[]string{"vnncomp", "run-instance", mobilenetBlock, data, out + ".txt", "10"}, exitOK, "error in"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
		if tc.args[0] != "quantise" && stdout.Len() != 0 {
			t.Errorf("%v: stdout %q", tc.args, stdout.String())
		}
	}
	for _, ext := range []string{".dat-s", ".cbf", ".onnx"} {
		if _, err := os.Stat(out + ext); err == nil {
			t.Errorf("%s was written", out+ext)
		}
	}
}

// writeFile writes s to path.
func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// TestCancelSweepGraph stops a graph sweep during its second width, as
// SIGINT would: it must exit 130 and report the rows finished (their
// bounds hold), marked as a cancelled sweep, with no figure left behind.
func TestCancelSweepGraph(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"sweep", "-v", mobilenetBlock, "--frac-bits", "4,6,8", "--lo", "0", "--hi", "1", "--max-pieces", "1",
			"--samples", "50", "--timeout", "0", "--plot", filepath.Join(dir, "s.png")}
		if asJSON {
			args = append(args, "--json")
		}
		ctx, cancel := context.WithCancel(context.Background())
		stderr := &cancelAfter{n: 2, marker: "certify: graph pass", cancel: cancel}
		var stdout bytes.Buffer
		code := runContext(ctx, nil, args, &stdout, stderr)
		cancel()
		if code != exitCancelled {
			t.Fatalf("json %v: exit %d, want %d; stderr:\n%s", asJSON, code, exitCancelled, stderr.buf.String())
		}
		if asJSON {
			var j struct {
				Rows   []json.RawMessage `json:"rows"`
				Status string            `json:"status"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &j); err != nil {
				t.Fatal(err)
			}
			rows := len(j.Rows)
			if want := fmt.Sprintf("cancelled after %d of 3 rows", rows); j.Status != want || rows < 1 || rows > 2 {
				t.Errorf("status %q, %d rows", j.Status, rows)
			}
		} else if !strings.Contains(stdout.String(), " of 3 rows (stopped by a signal)") {
			t.Errorf("stdout does not mark the sweep cancelled:\n%s", stdout.String())
		}
		if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
			t.Errorf("left %v behind", files)
		}
	}
}

// TestSweepChainFloat32 sweeps a chain under --arith float32, through the
// graph path with the chain's own copies: its rows cover float32
// evaluation, and --save-best writes the chain in its own format.
func TestSweepChainFloat32(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 1)
	best := filepath.Join(dir, "best.json")
	var stdout, stderr bytes.Buffer
	args := []string{"sweep", a, "--frac-bits", "4,8", "--arith", "float32", "--max-pieces", "4", "--json", "--target-error", "10", "--save-best", best}
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var j struct {
		Rows []struct {
			Certified bool `json:"certified"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &j); err != nil || len(j.Rows) != 2 || !j.Rows[0].Certified || !j.Rows[1].Certified {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if _, _, err := modelfile.Load(best, modelfile.Options{}); err != nil {
		t.Errorf("--save-best: %v", err)
	}
}

// TestGraphCopiesSampled prunes and sweeps the test graphs with a
// concatenation, max pooling and a projection skip, and checks each
// certified bound at sampled points of the copy saved.
func TestGraphCopiesSampled(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{inceptionConcat, maxpoolNet, digitsResCNN} {
		g := loadTestGraph(t, path)
		out := filepath.Join(dir, "copy.onnx")
		for _, args := range [][]string{
			{"prune", path, "--sparsity", "0.3", "--certify", "--save", out},
			{"prune", path, "--neurons", "2", "--certify", "--save", out},
			{"sweep", path, "--frac-bits", "7", "--target-error", "1e6", "--save-best", out, "--plot", ""},
		} {
			var stdout, stderr bytes.Buffer
			args = append(args, "--lo", "0", "--hi", "1", "--max-pieces", "1", "--samples", "50", "--timeout", "0", "--json")
			if code := run(args, &stdout, &stderr); code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
			var c struct {
				certJSON
				Rows []certJSON `json:"rows"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			if len(c.Rows) == 1 {
				c.certJSON = c.Rows[0]
			}
			if !c.Certified || !(c.Bound >= c.Observed) {
				t.Fatalf("%v: certified %v, bound %g, observed %g", args, c.Certified, c.Bound, c.Observed)
			}
			checkBoundSampled(t, g, loadTestGraph(t, out), 0, 1, 0, c.Bound)
		}
	}
}

// TestSaveKeepsConvolutions: the copy of a chain of convolutions is saved
// with its convolutions when the compression made on them is the same
// function (quantise), and pruning acts on the real weights: a pruned
// output channel's whole kernel is zeroed, the report counts the model's
// parameters (the kernels', not those of the dense matrices the chain
// carries) and the copy keeps its convolutions.
func TestSaveKeepsConvolutions(t *testing.T) {
	const digitsCNN = "../../testdata/graphs/digits_cnn.onnx"
	out := filepath.Join(t.TempDir(), "copy.onnx")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"quantise", digitsCNN, "--frac-bits", "6", "--save", out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("quantise: exit %d: %s", code, stderr.String())
	}
	g, _, _, err := modelfile.LoadGraph(out, modelfile.Options{})
	if err != nil || !modelfile.Structured(g) || strings.Contains(stderr.String(), "dense layers") {
		t.Errorf("quantise --save: structured %v (%v), stderr %q", err == nil && modelfile.Structured(g), err, stderr.String())
	}
	if !strings.Contains(stdout.String(), fmt.Sprintf("of %d parameters", g.NumParams())) {
		t.Errorf("quantise's report does not count the kernels' %d parameters:\n%s", g.NumParams(), stdout.String())
	}
	for _, flags := range [][]string{{"--neurons", "2"}, {"--sparsity", "0.5"}} {
		stdout.Reset()
		stderr.Reset()
		if code := run(append([]string{"prune", digitsCNN, "--save", out}, flags...), &stdout, &stderr); code != exitOK {
			t.Fatalf("prune %v: exit %d: %s", flags, code, stderr.String())
		}
		p := loadTestGraph(t, out)
		if !modelfile.Structured(p) || stderr.Len() > 0 || !strings.Contains(stdout.String(), "of 3818 parameters") {
			t.Errorf("prune %v: structured %v, stderr %q, report:\n%s", flags, modelfile.Structured(p), stderr.String(), stdout.String())
		}
		if flags[0] != "--neurons" {
			continue
		}
		conv := p.Nodes[2].Op.(*nn.Affine).M.(*nn.Conv2D) // conv 3x3 8->16
		zero := 0
		for c := range conv.OutC {
			k := conv.Kernel[c*72 : (c+1)*72]
			if !slices.ContainsFunc(k, func(v float64) bool { return v != 0 }) {
				zero++
			}
		}
		if zero != 2 {
			t.Errorf("prune --neurons 2: %d whole kernels of the second convolution zeroed, want 2", zero)
		}
	}
}
