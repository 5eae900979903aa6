package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
)

// Models of the repository's own test data used by the command tests.
const (
	tinyNNet = "../../nn/nnet/testdata/tiny.nnet"
	actJSON  = "../../nn/jsonnet/testdata/activations.json"
)

// goldenCase is one command line whose stdout (and saved file, if any) is
// checked against golden files in testdata/<command>/.
type goldenCase struct {
	golden string   // name of the stdout golden file
	args   []string // OUT in args is replaced by a temporary .json path
	saved  string   // name of the golden file for OUT ("" if none)
}

func runGolden(t *testing.T, command string, cases []goldenCase) {
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			args := append([]string{command}, tc.args...)
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != exitOK {
				t.Fatalf("exit code %d: %s", code, stderr.String())
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr = %q, want nothing", stderr.String())
			}
			got := strings.ReplaceAll(stdout.String(), out, "OUT")
			checkGolden(t, filepath.Join("testdata", command, tc.golden), []byte(got))
			if tc.saved != "" {
				data, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				checkGolden(t, filepath.Join("testdata", command, tc.saved), data)
			}
		})
	}
}

func TestInspectGolden(t *testing.T) {
	runGolden(t, "inspect", []goldenCase{
		{golden: "tiny.txt", args: []string{tinyNNet}},
		{golden: "tiny-core.txt", args: []string{"--core", tinyNNet}},
		{golden: "activations.txt", args: []string{actJSON}},
		{golden: "sniffed.txt", args: []string{"testdata/inspect/small"}},
		{golden: "tiny.json", args: []string{tinyNNet, "--json"}},
	})
}

func TestEvalGolden(t *testing.T) {
	runGolden(t, "eval", []goldenCase{
		{golden: "tiny-clipped.txt", args: []string{tinyNNet, "--input", "3,-2"}},
		{golden: "tiny.json", args: []string{tinyNNet, "--input=-0.5,4", "--json"}},
		{golden: "tiny-core.txt", args: []string{tinyNNet, "--core", "--input", "0.25,-0.5"}},
		{golden: "activations.txt", args: []string{actJSON, "--input", "0.7, 5"}},
		{golden: "small.json", args: []string{"testdata/inspect/small", "--json", "--input", "1e-3,-2"}},
	})
}

func TestQuantiseGolden(t *testing.T) {
	runGolden(t, "quantise", []goldenCase{
		{golden: "tiny-fb1.txt", args: []string{tinyNNet, "--frac-bits", "1", "--save", "OUT"}, saved: "tiny-fb1.json"},
		{golden: "tiny-core-nearest.txt", args: []string{tinyNNet, "--core", "--frac-bits", "2", "--rounding", "nearest", "--save", "OUT"}, saved: "tiny-core-nearest.json"},
		{golden: "activations-sat.txt", args: []string{actJSON, "--frac-bits", "3", "--bias-frac-bits", "1", "--int-bits", "1", "--saturate", "--rounding", "floor", "--save", "OUT"}, saved: "activations-sat.json"},
		{golden: "small-f16.txt", args: []string{"testdata/inspect/small", "--float16", "--save", "OUT"}, saved: "small-f16.json"},
		{golden: "tiny-fb1-report.json", args: []string{tinyNNet, "--frac-bits", "1", "--save", "OUT", "--json"}},
	})
}

func TestPruneGolden(t *testing.T) {
	runGolden(t, "prune", []goldenCase{
		{golden: "neurons.txt", args: []string{actJSON, "--neurons", "2", "--save", "OUT"}, saved: "neurons.json"},
		{golden: "neurons-per-layer.txt", args: []string{actJSON, "--neurons", "1", "--scope", "per-layer", "--save", "OUT"}},
		{golden: "remove.txt", args: []string{actJSON, "--neurons", "1", "--remove", "--save", "OUT"}, saved: "remove.json"},
		{golden: "sparsity.txt", args: []string{actJSON, "--sparsity", "0.5", "--save", "OUT"}, saved: "sparsity.json"},
		{golden: "sparsity-global.txt", args: []string{actJSON, "--sparsity", "0.25", "--scope", "global", "--save", "OUT"}},
		{golden: "neurons-report.json", args: []string{actJSON, "--neurons", "2", "--save", "OUT", "--json"}},
		{golden: "remove-report.json", args: []string{actJSON, "--neurons", "1", "--remove", "--save", "OUT", "--json"}},
	})
}

func TestVersionGolden(t *testing.T) {
	runGolden(t, "version", []goldenCase{
		{golden: "version.txt", args: nil},
		{golden: "version.json", args: []string{"--json"}},
	})
}

// TestModelCommandErrors checks bad models and bad flags: usage errors exit
// 2, everything else 1, and nothing is saved.
func TestModelCommandErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tiny, err := os.ReadFile(tinyNNet)
	if err != nil {
		t.Fatal(err)
	}
	var (
		missing = filepath.Join(dir, "missing.onnx")
		empty   = write("empty.nnet", nil)
		random  = write("random", []byte{0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00})
		nanNet  = write("nan.nnet", bytes.Replace(tiny, []byte("\n2.0,1.0,"), []byte("\n2.0,NaN,"), 1))
		out     = filepath.Join(dir, "out.json")
	)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"inspect missing file", []string{"inspect", missing}, exitFail, "no such file"},
		{"inspect directory", []string{"inspect", dir}, exitFail, "is a directory"},
		{"inspect empty file", []string{"inspect", empty}, exitFail, "is empty"},
		{"inspect random bytes", []string{"inspect", random}, exitFail, "cannot tell the format"},
		{"inspect NaN weight", []string{"inspect", nanNet}, exitFail, "nan.nnet:14: weight row 1 of layer 2: value 2 is NaN"},
		{"inspect no model", []string{"inspect"}, exitUsage, "arg"},
		{"inspect two models", []string{"inspect", tinyNNet, actJSON}, exitUsage, "arg"},
		{"eval missing file", []string{"eval", missing, "--input", "1"}, exitFail, "no such file"},
		{"eval NaN weight", []string{"eval", nanNet, "--input", "1,2"}, exitFail, "is NaN"},
		{"eval wrong input length", []string{"eval", tinyNNet, "--input", "1,2,3"}, exitUsage, "--input has 3 values but"},
		{"eval no input", []string{"eval", tinyNNet}, exitUsage, "needs --input"},
		{"eval bad number", []string{"eval", tinyNNet, "--input", "1,x"}, exitUsage, `value 2, "x", is not a number`},
		{"eval missing number", []string{"eval", tinyNNet, "--input", "1,"}, exitUsage, "value 2 is missing"},
		{"eval infinite input", []string{"eval", tinyNNet, "--input", "1,inf"}, exitUsage, "must be finite"},
		{"eval unknown flag", []string{"eval", tinyNNet, "--inputs", "1,2"}, exitUsage, "unknown flag"},
		{"quantise frac-bits 0", []string{"quantise", tinyNNet, "--frac-bits", "0", "--save", out}, exitUsage, "--frac-bits 0: want 1 to 52"},
		{"quantise frac-bits 60", []string{"quantise", tinyNNet, "--frac-bits", "60", "--save", out}, exitUsage, "--frac-bits 60: want 1 to 52"},
		{"quantise bias-frac-bits 0", []string{"quantise", tinyNNet, "--bias-frac-bits", "0", "--save", out}, exitUsage, "--bias-frac-bits 0"},
		{"quantise negative int-bits", []string{"quantise", tinyNNet, "--int-bits", "-1", "--save", out}, exitUsage, "--int-bits -1"},
		{"quantise word too long", []string{"quantise", tinyNNet, "--int-bits", "20", "--frac-bits", "50", "--save", out}, exitUsage, "IntBits+FracBits is 70"},
		{"quantise bad rounding", []string{"quantise", tinyNNet, "--rounding", "up", "--save", out}, exitUsage, "--rounding \"up\""},
		{"quantise saturate alone", []string{"quantise", tinyNNet, "--saturate", "--save", out}, exitUsage, "--saturate needs --int-bits"},
		{"quantise float16 and frac-bits", []string{"quantise", tinyNNet, "--float16", "--frac-bits", "4", "--save", out}, exitUsage, "--float16 and --frac-bits"},
		{"quantise no save", []string{"quantise", tinyNNet}, exitUsage, "--save OUT is missing"},
		{"quantise save nnet", []string{"quantise", tinyNNet, "--save", filepath.Join(dir, "q.nnet")}, exitUsage, "want a .onnx or .json"},
		{"quantise out of range", []string{"quantise", actJSON, "--int-bits", "1", "--frac-bits", "2", "--save", out}, exitFail, "layer 0 weights: 1 value out of the range of <1,2> trunc (largest magnitude 2, limit 1.75)"},
		{"quantise missing file", []string{"quantise", missing, "--save", out}, exitFail, "no such file"},
		{"quantise random bytes", []string{"quantise", random, "--save", out}, exitFail, "cannot tell the format"},
		{"prune neither", []string{"prune", actJSON, "--save", out}, exitUsage, "one of --neurons K and --sparsity S"},
		{"prune both", []string{"prune", actJSON, "--neurons", "1", "--sparsity", "0.5", "--save", out}, exitUsage, "--neurons and --sparsity do not go together"},
		{"prune zero neurons", []string{"prune", actJSON, "--neurons", "0", "--save", out}, exitUsage, "--neurons 0"},
		{"prune sparsity above 1", []string{"prune", actJSON, "--sparsity", "1.5", "--save", out}, exitUsage, "--sparsity 1.5"},
		{"prune bad scope", []string{"prune", actJSON, "--neurons", "1", "--scope", "all", "--save", out}, exitUsage, "--scope \"all\""},
		{"prune remove with sparsity", []string{"prune", actJSON, "--sparsity", "0.5", "--remove", "--save", out}, exitUsage, "--remove goes with --neurons"},
		{"prune too many neurons", []string{"prune", actJSON, "--neurons", "6", "--save", out}, exitUsage, "6 neurons asked, the hidden layers after the first have 5"},
		{"prune remove whole layer", []string{"prune", actJSON, "--neurons", "2", "--scope", "per-layer", "--remove", "--save", out}, exitUsage, "removing all 2 neurons of layer 2"},
		{"prune shallow network", []string{"prune", tinyNNet, "--neurons", "1", "--save", out}, exitUsage, "no hidden layer after the first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

// TestSaveONNX quantises to an ONNX file and checks that eval gives the
// same outputs from it as from the JSON copy.
func TestSaveONNX(t *testing.T) {
	dir := t.TempDir()
	outputs := map[string]string{}
	for _, ext := range []string{".json", ".onnx"} {
		out := filepath.Join(dir, "q"+ext)
		var stdout, stderr bytes.Buffer
		if code := run([]string{"quantise", tinyNNet, "--frac-bits", "3", "--save", out}, &stdout, &stderr); code != exitOK {
			t.Fatalf("quantise to %s: exit %d: %s", ext, code, stderr.String())
		}
		stdout.Reset()
		if code := run([]string{"eval", out, "--input", "0.3,1.7", "--json"}, &stdout, &stderr); code != exitOK {
			t.Fatalf("eval %s: exit %d: %s", ext, code, stderr.String())
		}
		outputs[ext] = stdout.String()
	}
	if outputs[".json"] != outputs[".onnx"] {
		t.Errorf("outputs differ: JSON %s ONNX %s", outputs[".json"], outputs[".onnx"])
	}
}

// TestEvalSharedSamples runs "nnbound eval --json" on an ACAS Xu network in
// raw units and as its core, against the shared samples. (The library test
// in nn/modelfile covers every network of the shared folder.)
func TestEvalSharedSamples(t *testing.T) {
	dir := sharedtest.Path(t, "data", "networks", "acasxu")
	data, err := os.ReadFile(filepath.Join(dir, "samples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Networks map[string]struct {
			Samples []struct {
				XRaw  []float64 `json:"x_raw"`
				XNorm []float64 `json:"x_norm"`
				YRaw  []float64 `json:"y_raw"`
				YNorm []float64 `json:"y_norm"`
			} `json:"samples"`
		} `json:"networks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "nnet", "ACASXU_experimental_v2a_1_1.nnet")
	for k, smp := range s.Networks["ACASXU_experimental_v2a_1_1"].Samples {
		for _, core := range []bool{false, true} {
			x, want := smp.XRaw, smp.YRaw
			args := []string{"eval", model, "--json", "--input", joinFloats(x)}
			if core {
				x, want = smp.XNorm, smp.YNorm
				args = []string{"eval", model, "--core", "--json", "--input", joinFloats(x)}
			}
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			var got struct{ Output []float64 }
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if e := math.Abs(got.Output[i]-want[i]) / math.Abs(want[i]); e > 1e-9 {
					t.Errorf("sample %d core=%v output %d: %v, want %v", k, core, i, got.Output[i], want[i])
				}
			}
		}
	}
}

// joinFloats writes x as --input wants it, exactly.
func joinFloats(x []float64) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}
