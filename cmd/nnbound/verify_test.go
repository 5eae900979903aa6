package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/jsonnet"
)

func TestVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 2)
	b := writeNet(t, dir, "b.json", 2, 2)
	tests := []commandCase{
		{"no epsilon", []string{"verify", a, b}, exitUsage, ""},
		{"bad norm", []string{"verify", a, b, "--epsilon", "1", "--norm", "1"}, exitUsage, ""},
		{"zero epsilon", []string{"verify", a, b, "--epsilon", "0"}, exitUsage, ""},
		{"output range", []string{"verify", a, b, "--epsilon", "1", "--output", "1"}, exitUsage, ""},
		{"same network", []string{"verify", a, a, "--epsilon", "1e-6"}, exitOK, "verdict   holds"},
		{"progress lines", []string{"verify", a, a, "--epsilon", "1e-6", "--progress"}, exitOK, "cpu       "},
		{"quiet", []string{"verify", a, a, "--epsilon", "1e-6", "--quiet"}, exitOK, "verdict   holds"},
		{"far apart", []string{"verify", a, b, "--epsilon", "1e-3"}, exitFail, "verdict   violated"},
		{"norm 2, one node", []string{"verify", a, b, "--epsilon", "1e6", "--norm", "2", "--max-nodes", "1"}, exitOK, "verdict   holds"},
		{"node limit", []string{"verify", a, b, "--epsilon", "1e-9", "--output", "0", "--max-nodes", "1", "--json"}, exitFail, "\"verdict\""},
		// the same network never settles a denormal epsilon: only the limit stops it
		{"time limit in seconds", []string{"verify", a, a, "--epsilon", "5e-324", "--timeout", "0.05"}, exitFail, "verdict   unknown (timeout)"},
	}
	runCommandCases(t, tests)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"verify", a, b, "--epsilon", "1e-3", "--json"}, &stdout, &stderr); code != exitFail {
		t.Fatalf("--json: exit %d, stderr %q", code, stderr.String())
	}
	var res struct {
		Verdict        string
		Counterexample struct{ X, Difference []float64 }
		Nodes          int
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("--json: %v: %s", err, stdout.String())
	}
	if res.Verdict != "violated" || len(res.Counterexample.X) != 1 || res.Nodes < 1 {
		t.Errorf("--json: %+v", res)
	}
}

// TestVerifyPairSpec gives verify a VNN-LIB 2.0 two-network property:
// its asymmetric output range replaces --epsilon, and --json reports the
// alignment.
func TestVerifyPairSpec(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 2)
	prop := filepath.Join(dir, "p.vnnlib")
	text := `(vnnlib-version <2.0>)
(declare-network f (declare-input X_f real [1]) (declare-output Y_f real [1]))
(declare-network g (declare-input X_g real [1]) (declare-output Y_g real [1]))
(assert (and (>= X_f[0] -1) (<= X_f[0] 1)))
(assert (== X_f[0] X_g[0]))
(assert (and (<= Y_g[0] (+ Y_f[0] 0.2)) (>= Y_g[0] (- Y_f[0] 0.1))))
`
	if err := os.WriteFile(prop, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"verify", a, a, "--vnnlib", prop, "--epsilon", "1"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("--epsilon with a 2.0 property: exit %d, stderr %q", code, stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"verify", a, a, "--vnnlib", prop, "--json"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	var res struct {
		Verdict   string
		Alignment struct {
			Aligned []struct{ Matched int }
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("--json: %v: %s", err, stdout.String())
	}
	if res.Verdict != "holds" || len(res.Alignment.Aligned) != 2 || res.Alignment.Aligned[0].Matched != 5 {
		t.Errorf("--json: %+v", res)
	}
	stdout.Reset()
	if code := run([]string{"verify", a, a, "--vnnlib", prop, "--no-align", "--json"}, &stdout, &stderr); code != exitOK || strings.Contains(stdout.String(), "alignment") {
		t.Errorf("--no-align: exit %d, stdout %q", code, stdout.String())
	}
}

// countingFile counts the reads of a property file and whether it was
// read to its end.
type countingFile struct {
	io.ReadCloser
	reads, eofs *int
}

func (c countingFile) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	*c.reads++
	if err == io.EOF {
		*c.eofs++
	}
	return n, err
}

// TestVerifyReadsPropertyOnce checks that verify opens the --vnnlib file
// once and reads it through once, for either version.
func TestVerifyReadsPropertyOnce(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 2)
	v1 := filepath.Join(dir, "v1.vnnlib")
	v2 := filepath.Join(dir, "v2.vnnlib")
	for path, text := range map[string]string{
		v1: "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (>= X_0 -1))\n(assert (<= X_0 1))\n",
		v2: `(vnnlib-version <2.0>)
(declare-network f (declare-input X_f real [1]) (declare-output Y_f real [1]))
(declare-network g (declare-input X_g real [1]) (declare-output Y_g real [1]))
(assert (and (>= X_f[0] -1) (<= X_f[0] 1)))
(assert (== X_f[0] X_g[0]))
(assert (and (<= Y_g[0] (+ Y_f[0] 0.2)) (>= Y_g[0] (- Y_f[0] 0.1))))
`} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer func(old func(string) (io.ReadCloser, error)) { openProperty = old }(openProperty)
	for _, tc := range []struct {
		path string
		args []string
	}{{v1, []string{"--epsilon", "1"}}, {v2, nil}} {
		opens, reads, eofs := 0, 0, 0
		openProperty = func(path string) (io.ReadCloser, error) {
			opens++
			r, err := os.Open(path)
			return countingFile{r, &reads, &eofs}, err
		}
		var stdout, stderr bytes.Buffer
		args := append([]string{"verify", a, a, "--vnnlib", tc.path}, tc.args...)
		if code := run(args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", tc.path, code, stdout.String(), stderr.String())
		}
		if opens != 1 || eofs != 1 || reads < 1 {
			t.Errorf("%s: %d opens, %d reads, end reached %d times; want one open read through once", filepath.Base(tc.path), opens, reads, eofs)
		}
	}
}

// writeNetwork writes n to dir/name as JSON and returns the path.
func writeNetwork(t *testing.T, dir, name string, n *nn.Network) string {
	t.Helper()
	var buf bytes.Buffer
	if err := jsonnet.Write(&buf, n); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVerifyPermutationNotViolated is issue 30's starkest case: g a
// permutation of f's hidden neurons (their difference is exactly 0),
// epsilon one ulp of 1, norm 2, no alignment. float64 evaluations differ
// by about 2e-16 there, which is no counterexample: the verdict must not
// be violated (aligned, it holds).
func TestVerifyPermutationNotViolated(t *testing.T) {
	dir := t.TempDir()
	f := randnet.Paper(3, 1, 2, 8, 2)
	a := writeNetwork(t, dir, "f.json", f)
	b := writeNetwork(t, dir, "g.json", randnet.Permuted(f, rand.New(rand.NewPCG(3, 30))))
	common := []string{"verify", a, b, "--epsilon", "2.220446049250313e-16", "--lo", "-1", "--hi", "1", "--norm", "2"}
	var stdout, stderr bytes.Buffer
	code := run(append(common, "--no-align", "--max-nodes", "200"), &stdout, &stderr)
	if code != exitFail || strings.Contains(stdout.String(), "violated") {
		t.Errorf("--no-align: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run(common, &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), "verdict   holds") {
		t.Errorf("aligned: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestVerifyRelational gives verify a relational VNN-LIB 2.0 property
// (monotonicity of one network, (equal-to f), gzipped): a network made
// increasing in x_0 holds for "y_g < y_f is unsafe" and is violated with
// a pair evaluated again for the other direction; the result in JSON has
// the relational fields.
func TestVerifyRelational(t *testing.T) {
	dir := t.TempDir()
	f := randnet.Paper(3, 1, 2, 5, 1)
	for _, l := range f.Layers { // increasing in x_0
		r, c := l.W.Dims()
		for i := range r {
			for j := range c {
				l.W.Set(i, j, math.Abs(l.W.At(i, j)))
			}
		}
	}
	a := writeNetwork(t, dir, "a.json", f)
	prop := func(rel string) string {
		text := `(vnnlib-version <2.0>)
(declare-network f (declare-input X_f real [1]) (declare-output Y_f real [1]))
(declare-network g (equal-to f) (declare-input X_g real [1]) (declare-output Y_g real [1]))
(assert (and (>= X_f[0] -1) (<= X_f[0] 1)))
(assert (and (>= X_g[0] -1) (<= X_g[0] 1)))
(assert (<= X_f[0] X_g[0]))
(assert (` + rel + ` Y_g[0] Y_f[0]))
`
		path := filepath.Join(dir, "m"+map[string]string{"<": "lt", ">": "gt"}[rel]+".vnnlib.gz")
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		z.Write([]byte(text))
		z.Close()
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	runCommandCases(t, []commandCase{
		{"monotone", []string{"verify", a, a, "--vnnlib", prop("<")}, exitOK, "verdict   holds"},
		{"the other way", []string{"verify", a, a, "--vnnlib", prop(">")}, exitFail, "verdict   violated"},
		{"epsilon too", []string{"verify", a, a, "--vnnlib", prop("<"), "--epsilon", "1"}, exitUsage, ""},
	})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"verify", a, a, "--vnnlib", prop(">"), "--json"}, &stdout, &stderr); code != exitFail {
		t.Fatalf("--json: exit %d, stderr %q", code, stderr.String())
	}
	var res struct {
		Schema         int
		Verdict        string
		Counterexample struct {
			XF []float64 `json:"x_f"`
			XG []float64 `json:"x_g"`
		}
		Open *int
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("--json: %v: %s", err, stdout.String())
	}
	cx := res.Counterexample
	if res.Schema != 1 || res.Verdict != "violated" || len(cx.XF) != 1 || len(cx.XG) != 1 || cx.XF[0] > cx.XG[0] || res.Open == nil {
		t.Errorf("--json: %+v", res)
	}
}
