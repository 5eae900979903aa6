// Package sharedtest gives tests the files of the team's shared data folder
// (see package shared): Path skips a test when a file is absent, ReadJSON
// reads a reference sample. It is split from shared so that commands
// finding the folder do not link package testing.
package sharedtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/internal/shared"
)

// Path returns the path of elem inside the shared folder, calling t.Skip
// when the folder or the path is absent.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	root := shared.Root()
	if root == "" {
		t.Skip("shared data folder not found (set NNBOUND_SHARED)")
	}
	p := filepath.Join(append([]string{root}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data %s not found", filepath.Join(elem...))
	}
	return p
}

// ReadJSON decodes the JSON file at path into a T, failing t if the file
// cannot be read or decoded. The shared folder's reference samples
// (samples.json beside each group of networks) are read this way.
func ReadJSON[T any](t testing.TB, path string) T {
	t.Helper()
	var v T
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}
