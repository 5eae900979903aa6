package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestJSONSchema checks that the JSON documents of commands whose output
// is not in a golden file start with the schema version and name wall
// time "seconds" (docs/json.md).
func TestJSONSchema(t *testing.T) {
	dir := t.TempDir()
	a := writeNet(t, dir, "a.json", 1, 2)
	b := writeNet(t, dir, "b.json", 2, 2)
	csv := filepath.Join("..", "..", "docs", "examples", "vnncomp-sin3x", "instances.csv")
	for _, args := range [][]string{
		{"verify", a, b, "--epsilon", "1e-3", "--json"},
		{"vnncomp", csv, "--out", filepath.Join(dir, "out"), "--json"},
	} {
		var stdout, stderr bytes.Buffer
		run(args, &stdout, &stderr)
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v: %s %s", args[0], err, stdout.String(), stderr.String())
		}
		if string(doc["schema"]) != "1" {
			t.Errorf("%s: schema %s, want 1", args[0], doc["schema"])
		}
		if _, ok := doc["seconds"]; !ok {
			t.Errorf("%s: no seconds field: %s", args[0], stdout.String())
		}
		if _, ok := doc["cpu_seconds"]; !ok && args[0] == "verify" {
			t.Errorf("%s: no cpu_seconds field: %s", args[0], stdout.String())
		}
		if !bytes.HasPrefix(stdout.Bytes(), []byte("{\n  \"schema\": 1,")) {
			t.Errorf("%s: schema is not the first field", args[0])
		}
	}
}
