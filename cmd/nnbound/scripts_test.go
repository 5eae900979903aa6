package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnnlib"
)

// officialFormat parses VNN-COMP result files as the scorer reads them
// and prints, per file, the result and the assignment of a sat file as
// JSON: {"file": {"result": "sat", "values": {"X_0": v, ...}}} for
// VNN-LIB 1 and {"X_f": [v, ...], ...} for VNN-LIB 2.0.
const officialFormat = `
import json, re, sys
RESULTS = {"sat", "unsat", "timeout", "unknown", "error"}
out = {}
for path in sys.argv[1:]:
    text = open(path).read()
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    result = lines[0]
    assert result in RESULTS, (path, result)
    entry = {"result": result}
    if result == "sat":
        body = lines[1:]
        if body and body[0].startswith("("):
            pairs = re.findall(r"\(\s*([XY]_\d+)\s+([-+0-9.eE]+|nan|inf)\s*\)", " ".join(body))
            assert pairs, path
            entry["v1"] = {k: float(v) for k, v in pairs}
        else:
            vals, i = {}, 0
            while i < len(body):
                m = re.fullmatch(r"(\S+)\s+(real|float16|float32|float64)\s+\[([0-9,]*)\]", body[i])
                assert m, (path, body[i])
                n = 1
                for d in m.group(3).split(","):
                    n *= int(d)
                vals[m.group(1)] = [float(v) for v in body[i + 1:i + 1 + n]]
                assert len(vals[m.group(1)]) == n, path
                i += 1 + n
            entry["v2"] = vals
    else:
        assert len(lines) == 1, path
    out[path] = entry
print(json.dumps(out))
`

// gzipFile writes data gzipped to path.
func gzipFile(t *testing.T, path string, data []byte) {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write(data)
	z.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompetitionScripts builds a small benchmark folder (gzipped
// networks and properties: a VNN-LIB 1 row, a two-network equivalence row
// and two monotonicity rows), runs vnncomp/scripts on every row, parses
// each result file with an independent Python reading of the official
// format, and re-checks every sat assignment on the networks.
func TestCompetitionScripts(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "nnbound")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, _ := randnet.New(rand.New(rand.NewPCG(3, 4)), []int{3, 8, 8, 2})
	g := f.Clone()
	g.Layers[0].B[0] += 1e-3
	nets := map[string]*nn.Network{"f": f, "g": g}
	for name, n := range nets {
		var b bytes.Buffer
		if err := onnx.Write(&b, n); err != nil {
			t.Fatal(err)
		}
		gzipFile(t, filepath.Join(dir, "onnx", name+".onnx.gz"), b.Bytes())
	}
	box := "(assert (<= -0.2 X_f[0] 0.2))\n(assert (<= -0.1 X_f[1] 0.1))\n(assert (<= 0 X_f[2] 0.05))\n"
	head := "(vnnlib-version <2.0>)\n(declare-network f (declare-input X_f real [3]) (declare-output Y_f real [2]))\n" +
		"(declare-network g (%s f) (declare-input X_g real [3]) (declare-output Y_g real [2]))\n" + box
	y, _ := f.Eval([]float64{0, 0, 0.025})
	mono := fmt.Sprintf(head, "equal-to") + "(assert (<= -0.2 X_g[0] 0.2))\n(assert (<= X_f[0] X_g[0]))\n" +
		"(assert (== X_f[1] X_g[1]))\n(assert (== X_f[2] X_g[2]))\n(assert (< Y_g[%d] Y_f[%d]))\n"
	specs := map[string]string{
		"v1": "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const X_2 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n" +
			strings.NewReplacer("X_f[0]", "X_0", "X_f[1]", "X_1", "X_f[2]", "X_2").Replace(box) +
			fmt.Sprintf("(assert (or (and (>= Y_0 %v)) (and (>= Y_1 1e9))))\n", y[0]-0.1),
		"equiv": fmt.Sprintf(head, "isomorphic-to") + "(assert (== X_f[0] X_g[0]))\n(assert (== X_f[1] X_g[1]))\n(assert (== X_f[2] X_g[2]))\n" +
			"(assert (and (<= Y_g[0] (+ Y_f[0] 0.5)) (>= Y_g[0] (- Y_f[0] 0.5))))\n",
		"mono0": fmt.Sprintf(mono, 0, 0),
		"mono1": fmt.Sprintf(mono, 1, 1),
	}
	for name, text := range specs {
		gzipFile(t, filepath.Join(dir, "vnnlib", name+".vnnlib.gz"), []byte(text))
	}
	rows := [][2]string{
		{"onnx/f.onnx", "v1"},
		{"[('f', 'onnx/f.onnx'), ('g', 'onnx/g.onnx')]", "equiv"},
		{"[('f', 'onnx/f.onnx')]", "mono0"},
		{"[('f', 'onnx/f.onnx'), ('g', 'onnx/f.onnx')]", "mono1"},
	}
	var csv strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&csv, "%q,vnnlib/%s.vnnlib,30\n", r[0], r[1])
	}
	if err := os.WriteFile(filepath.Join(dir, "instances.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Abs("../../vnncomp/scripts")
	var results []string
	for i, r := range rows {
		res := filepath.Join(dir, fmt.Sprintf("result_%d.txt", i))
		results = append(results, res)
		vnn := "vnnlib/" + r[1] + ".vnnlib"
		for _, c := range [][]string{
			{filepath.Join(scripts, "prepare_instance.sh"), "v1", "test", r[0], vnn},
			{filepath.Join(scripts, "run_instance.sh"), "v1", "test", r[0], vnn, res, "30"},
		} {
			cmd := exec.Command(bash, c...)
			cmd.Dir, cmd.Env = dir, append(os.Environ(), "NNBOUND="+bin)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", filepath.Base(c[0]), err, out)
			}
		}
	}
	out, err := exec.Command(python, append([]string{"-c", officialFormat}, results...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("the official reading rejects a result file: %v\n%s", err, out)
	}
	var parsed map[string]struct {
		Result string
		V1     map[string]float64
		V2     map[string][]float64
	}
	if err := json.Unmarshal(out, &parsed); err != nil {
		t.Fatal(err)
	}
	want := []string{"sat", "unsat", "", "unsat"} // "": either, checked
	for i, res := range results {
		p := parsed[res]
		t.Logf("row %d (%s): %s", i, rows[i][1], p.Result)
		if want[i] != "" && p.Result != want[i] {
			t.Errorf("row %d: %s, want %s", i, p.Result, want[i])
		}
		if p.Result != "sat" && p.Result != "unsat" {
			t.Errorf("row %d undecided: %s", i, p.Result)
		}
		if p.Result == "sat" {
			checkAssignment(t, filepath.Join(dir, "vnnlib", rows[i][1]+".vnnlib"), f, g, p.V1, p.V2)
		}
	}
}

// checkAssignment re-checks a sat assignment, as the scorer would, on
// the networks and the property: the inputs must lie in the input set
// and violate the property (verify.CheckRelational, directed rounding),
// and the outputs written must be the networks' outputs there.
func checkAssignment(t *testing.T, spec string, f, g *nn.Network, v1 map[string]float64, v2 map[string][]float64) {
	t.Helper()
	prop, err := vnnlib.ReadPropertyFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	var xf, xg, yf []float64
	if prop.Spec != nil {
		for i := range 3 {
			xf = append(xf, v1[fmt.Sprintf("X_%d", i)])
		}
		for k := range 2 {
			yf = append(yf, v1[fmt.Sprintf("Y_%d", k)])
		}
	} else {
		xf, xg, yf = v2["X_f"], v2["X_g"], v2["Y_f"]
		if prop.Pair.G.EqualTo != "" {
			g = f
		}
	}
	if got, _ := f.Eval(xf); len(yf) != len(got) || absDiff(got, yf) > 1e-9 {
		t.Errorf("Y written %v, f gives %v", yf, got)
	}
	var s verify.Status
	switch {
	case prop.Spec != nil:
		r, _ := prop.Spec.Relational()
		_, s, err = verify.CheckRelational(f, nil, xf, nil, r)
	case prop.Pair.Relational != nil:
		_, s, err = verify.CheckRelational(f, g, xf, xg, prop.Pair.Relational)
	default:
		_, s, err = verify.CheckPoint(f, g, xf, xg, verify.PropertyCriterion(&prop.Pair.Property))
	}
	if err != nil || s != verify.Violated {
		t.Errorf("%s: the assignment re-checks as %v (%v)", filepath.Base(spec), s, err)
	}
}

// absDiff returns max_i |a_i - b_i|.
func absDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = max(m, a[i]-b[i], b[i]-a[i])
	}
	return m
}
