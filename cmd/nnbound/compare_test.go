package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn/jsonnet"
)

// writeNet writes a seeded random network as JSON and returns its path.
func writeNet(t *testing.T, dir, name string, seed uint64, layers int) string {
	t.Helper()
	return writeNetwork(t, dir, name, randnet.Paper(seed, 1, layers, 5, 1))
}

func TestCompareUsage(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 1)
	b := writeNet(t, dir, "b.json", 2, 2)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"one model", []string{"compare", a}, exitUsage},
		{"three models", []string{"compare", a, b, a}, exitUsage},
		{"bad pairing", []string{"compare", a, b, "--pairing", "twin"}, exitUsage},
		{"bad qc", []string{"compare", a, b, "--qc", "mine"}, exitUsage},
		{"bad rounding", []string{"compare", a, b, "--pairing", "quantised", "--input-rounding", "up"}, exitUsage},
		{"bad frac bits", []string{"compare", a, b, "--input-frac-bits", "-1"}, exitUsage},
		{"bad box", []string{"compare", a, b, "--box", "1:-1"}, exitUsage},
		{"bad plot", []string{"compare", a, b, "--plot", filepath.Join(dir, "x.gif")}, exitUsage},
		{"bad method", []string{"compare", a, b, "--method", "magic"}, exitUsage},
		{"bad norm", []string{"compare", a, b, "--norm", "1"}, exitUsage},
		{"bad output", []string{"compare", a, b, "--output", "3"}, exitUsage},
		{"bad arith", []string{"compare", a, b, "--arith", "float16"}, exitUsage},
		{"missing model", []string{"compare", a, filepath.Join(dir, "none.json")}, exitFail},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		if code := run(tc.args, &out, &errOut); code != tc.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", tc.name, code, tc.code, errOut.String())
		}
	}
}

// TestCompareJSON checks the JSON fields of a certificate and the exit
// status that goes with it.
func TestCompareJSON(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 1)
	var out, errOut bytes.Buffer
	code := run([]string{"compare", a, a, "--pairing", "same", "--json"}, &out, &errOut)
	var j map[string]any
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	for _, k := range []string{"certified", "status", "gamma", "gamma_x1", "gamma_x2", "gamma_x", "bound", "observed_error",
		"of", "norm", "method", "source", "sdp"} {
		if _, ok := j[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	s, _ := j["sdp"].(map[string]any)
	for _, k := range []string{"size", "variables", "iterations", "seconds"} {
		if _, ok := s[k]; !ok {
			t.Errorf("JSON sdp lacks %q", k)
		}
	}
	if cert, _ := j["certified"].(bool); (code == exitOK) != cert {
		t.Errorf("exit %d with certified %v", code, cert)
	}
}

// TestCompareAligns gives compare a copy of a network with its hidden
// neurons reversed: the alignment puts them back (noted on stderr), and
// --no-align leaves them.
func TestCompareAligns(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 1)
	net := randnet.Paper(1, 1, 1, 5, 1)
	h := net.Layers[0].Out()
	w0, w1 := net.Layers[0].W, net.Layers[1].W
	rev := net.Clone()
	for i := range h {
		j := h - 1 - i
		for c := range w0.RawMatrix().Cols {
			rev.Layers[0].W.Set(i, c, w0.At(j, c))
		}
		rev.Layers[0].B[i] = net.Layers[0].B[j]
		for r := range w1.RawMatrix().Rows {
			rev.Layers[1].W.Set(r, i, w1.At(r, j))
		}
	}
	var buf bytes.Buffer
	if err := jsonnet.Write(&buf, rev); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b.json")
	if err := os.WriteFile(b, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		extra []string
		note  bool
	}{{nil, true}, {[]string{"--no-align"}, false}} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"compare", a, b}, c.extra...)
		if code := run(args, &stdout, &stderr); code != exitOK {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
		if got := bytes.Contains(stderr.Bytes(), []byte("aligned: {0: 5 matched")); got != c.note {
			t.Errorf("%v: alignment noted %v, want %v; stderr %q", args, got, c.note, stderr.String())
		}
	}
}

// TestComparePairingDefaults: compare gives both networks the same input
// unless told, and --pairing quantised quantises the input to the copy's
// width (6 bits here), not to a fixed default; a float copy with no grid
// of its own needs --input-frac-bits.
func TestComparePairingDefaults(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 1)
	q6 := filepath.Join(dir, "q6.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"quantise", a, "--frac-bits", "6", "--save", q6}, &stdout, &stderr); code != exitOK {
		t.Fatalf("quantise: exit %d: %s", code, stderr.String())
	}
	for _, tc := range []struct {
		args   []string
		code   int
		input  string // the input set's line
		stderr string
	}{
		{[]string{a, q6}, exitOK, "x2 = x1", ""},
		{[]string{a, q6, "--pairing", "quantised"}, exitOK, "the input quantised to 6 fractional bits",
			"note: --pairing quantised: x2 = q(x1) with 6 fractional bits, the width of " + q6 + "'s weights (--input-frac-bits to change)\n"},
		{[]string{a, q6, "--pairing", "quantised", "--input-frac-bits", "3"}, exitOK, "the input quantised to 3 fractional bits", ""},
		{[]string{q6, a, "--pairing", "quantised"}, exitUsage, "", "nnbound: --pairing quantised: the weights of " + a + " are on no fixed-point grid of up to 52 fractional bits; give --input-frac-bits\n"},
	} {
		stdout.Reset()
		stderr.Reset()
		args := append([]string{"compare", "--max-pieces", "1", "--timeout", "0", "--samples", "50"}, tc.args...)
		code := run(args, &stdout, &stderr)
		if code != tc.code || !bytes.Contains(stdout.Bytes(), []byte(tc.input)) || stderr.String() != tc.stderr {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.input, tc.stderr)
		}
	}
}

// TestCompareArith checks that --arith float32 certifies chains through
// the graph path, and that the text and JSON name the arithmetic, for
// compare and quantise --certify.
func TestCompareArith(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 1)
	b := writeNet(t, dir, "b.json", 2, 1)
	for _, args := range [][]string{
		{"compare", a, b, "--arith", "float32", "--timeout", "0"},
		{"quantise", a, "--frac-bits", "6", "--certify", "--arith", "float32", "--timeout", "0"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		if !bytes.Contains(out.Bytes(), []byte("arithmetic      float32 evaluation")) {
			t.Errorf("%v: no arithmetic line:\n%s", args, out.String())
		}
		out.Reset()
		if code := run(append(args, "--json"), &out, &errOut); code != exitOK {
			t.Fatalf("%v --json: exit %d: %s", args, code, errOut.String())
		}
		var j struct {
			Arith      string `json:"arith"`
			SDPSkipped string `json:"sdp_skipped"`
			Certified  bool   `json:"certified"`
		}
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		if j.Arith != "float32" || !j.Certified || j.SDPSkipped == "" {
			t.Errorf("%v: arith %q, certified %v, sdp_skipped %q", args, j.Arith, j.Certified, j.SDPSkipped)
		}
	}
}

// TestExplicitMethodSDP checks that --method sdp given explicitly asks
// for every SDP whatever its size (certify.Refine.SolveLarge), and that
// the default method does not.
func TestExplicitMethodSDP(t *testing.T) {
	for _, tc := range []struct {
		method string
		set    bool
		want   bool
	}{{"sdp", false, false}, {"sdp", true, true}, {"interval", true, false}} {
		var f compareFlags
		cmd := &cobra.Command{}
		f.input.register(cmd.Flags())
		f.cert.register(cmd.Flags())
		f.pair.register(cmd, f.cert.opts)
		f.method, f.methodSet, f.norm, f.output = tc.method, tc.set, "2", -1
		o, err := f.options(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if o.Refine.SolveLarge != tc.want {
			t.Errorf("--method %s (given %v): SolveLarge %v, want %v", tc.method, tc.set, o.Refine.SolveLarge, tc.want)
		}
	}
}
