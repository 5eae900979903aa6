package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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
