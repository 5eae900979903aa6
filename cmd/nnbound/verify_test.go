package main

import (
	"bytes"
	"encoding/json"
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
