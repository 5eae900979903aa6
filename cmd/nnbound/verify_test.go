package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 2)
	b := writeNet(t, dir, "b.json", 2, 2)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no epsilon", []string{"verify", a, b}, exitUsage, ""},
		{"bad norm", []string{"verify", a, b, "--epsilon", "1", "--norm", "1"}, exitUsage, ""},
		{"zero epsilon", []string{"verify", a, b, "--epsilon", "0"}, exitUsage, ""},
		{"output range", []string{"verify", a, b, "--epsilon", "1", "--output", "1"}, exitUsage, ""},
		{"same network", []string{"verify", a, a, "--epsilon", "1e-6"}, exitOK, "verdict   holds"},
		{"far apart", []string{"verify", a, b, "--epsilon", "1e-3"}, exitFail, "verdict   violated"},
		{"norm 2, one node", []string{"verify", a, b, "--epsilon", "1e6", "--norm", "2", "--max-nodes", "1"}, exitOK, "verdict   holds"},
		{"node limit", []string{"verify", a, b, "--epsilon", "1e-9", "--output", "0", "--max-nodes", "1", "--json"}, exitFail, "\"verdict\""},
		// the same network never settles a denormal epsilon: only the limit stops it
		{"time limit in seconds", []string{"verify", a, a, "--epsilon", "5e-324", "--timeout", "0.05"}, exitFail, "verdict   unknown (timeout)"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q", tc.name, code, tc.code, stdout.String(), stderr.String())
		}
	}
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
