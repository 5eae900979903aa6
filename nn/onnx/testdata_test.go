package onnx

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// sentinels maps the error names of testdata/cases.json to errors.
var sentinels = map[string]error{
	"ErrMalformed":     ErrMalformed,
	"ErrUnsupportedOp": ErrUnsupportedOp,
	"ErrNotChain":      ErrNotChain,
	"ErrNotConstant":   ErrNotConstant,
	"ErrShape":         ErrShape,
	"ErrDataType":      ErrDataType,
	"ErrTooLarge":      ErrTooLarge,
	"ErrNotFinite":     nn.ErrNotFinite,
}

// testCase is one case of testdata/cases.json or testdata/dag/cases.json:
// a file with sample inputs and outputs, or the error it must give.
type testCase struct {
	File, Desc, Error string
	Inputs, Outputs   [][]float64
	Acts              []string
	NotChain          bool `json:"not_chain"` // a graph that Read refuses (ErrNotChain)
}

// readCases reads the cases of a cases.json file.
func readCases(t *testing.T, path string) []testCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Cases []testCase }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file.Cases
}

// TestGraphs checks the hand-made graphs of testdata/graphs (made by
// testdata/gen.py) against the outputs of its numpy evaluator, the layer
// activations they should translate to, or the error they should give;
// graphs that are no chain by ReadGraph alone.
func TestGraphs(t *testing.T) {
	for _, c := range readCases(t, filepath.Join("testdata", "cases.json")) {
		t.Run(c.File, func(t *testing.T) {
			path := filepath.Join("testdata", "graphs", c.File)
			if c.Error != "" {
				_, _, err := Read(path)
				want, ok := sentinels[c.Error]
				if !ok {
					t.Fatalf("unknown sentinel %s", c.Error)
				}
				if !errors.Is(err, want) {
					t.Fatalf("%s: got error %v, want %s", c.Desc, err, c.Error)
				}
				t.Log(err)
				checkGraphError(t, path)
				return
			}
			var samples []sample
			for i, x := range c.Inputs {
				samples = append(samples, sample{x, c.Outputs[i]})
			}
			if c.NotChain {
				if _, _, err := Read(path); !errors.Is(err, ErrNotChain) {
					t.Errorf("%s: Read gave %v, want ErrNotChain", c.Desc, err)
				}
				g, _, err := ReadGraph(path)
				if err != nil {
					t.Fatal(err)
				}
				checkEval(t, "graph", g.Eval, samples, 1e-12)
				return
			}
			checkSamples(t, path, samples, 1e-12)
			if c.Acts != nil {
				net, _, _ := Read(path)
				var acts []string
				for _, l := range net.Layers {
					acts = append(acts, l.Act.Kind.String())
				}
				if len(acts) != len(c.Acts) {
					t.Fatalf("%s: layers %v, want %v", c.Desc, acts, c.Acts)
				}
				for i := range acts {
					if acts[i] != c.Acts[i] {
						t.Fatalf("%s: layers %v, want %v", c.Desc, acts, c.Acts)
					}
				}
			}
		})
	}
}

// checkGraphError checks that ReadGraph of a file that Read refuses either
// reads it (a graph that is no chain) or gives an error wrapping one of
// the sentinels.
func checkGraphError(t *testing.T, path string) {
	t.Helper()
	g, _, err := ReadGraph(path)
	if err == nil {
		t.Logf("ReadGraph: %s", g.Ops())
		return
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			t.Logf("ReadGraph: %v", err)
			return
		}
	}
	t.Errorf("ReadGraph: %v wraps no sentinel", err)
}

// TestTorchTestdata checks the PyTorch exports copied into testdata/torch.
func TestTorchTestdata(t *testing.T) {
	checkTorchDir(t, filepath.Join("testdata", "torch"), tolFloat)
}

// TestCNNTestdata checks the PyTorch CNNs of testdata/cnn (Conv,
// BatchNormalization, AveragePool, a residual Add) against the float64
// evaluation of each file by testdata/convref.py.
func TestCNNTestdata(t *testing.T) {
	checkTorchDir(t, filepath.Join("testdata", "cnn"), tolDouble)
}

// TestLoweredInfo checks that Info.Lowered describes the lowered nodes.
func TestLoweredInfo(t *testing.T) {
	_, info, err := Read(filepath.Join("testdata", "cnn", "cnn_avgpool", "cnn_avgpool.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Conv 1x8x8 -> 8x8x8 (512 x 64)", "AveragePool 8x8x8 -> 8x4x4 (128 x 512)",
		"Conv 8x4x4 -> 16x4x4 (256 x 128)"}
	if !slices.Equal(info.Lowered, want) {
		t.Errorf("Lowered = %q, want %q", info.Lowered, want)
	}
	if s := info.String(); !strings.Contains(s, "lowered:      Conv 1x8x8") {
		t.Errorf("String() does not list the lowered nodes:\n%s", s)
	}
}
