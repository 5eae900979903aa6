package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update makes the golden tests rewrite their files instead of comparing:
//
//	go test ./cmd/nnbound -update
var update = flag.Bool("update", false, "rewrite the golden files of cmd/nnbound")

// checkGolden compares got with the golden file at path (relative to the
// package directory), rewriting it, and creating its directory, under
// -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update accepts it):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
