// Package shared locates the team's shared data folder for tests and bench
// commands, and reads the JSON reference samples kept there. The folder
// holds third-party files (SDPLIB, ACAS Xu networks, peer benchmarks) that
// are never copied into the repository.
//
// The folder is "../shared" relative to the repository root, or the
// directory named by the environment variable NNBOUND_SHARED. Tests reach
// a file with Path, which skips the test when it is absent:
//
//	samples := shared.ReadJSON[map[string]any](t, shared.Path(t, "data", "networks", "paper", "samples.json"))
package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the shared folder, or "" if it cannot be found.
func Root() string {
	if d := os.Getenv("NNBOUND_SHARED"); d != "" {
		if isDir(d) {
			return d
		}
		return ""
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) {
			d := filepath.Join(dir, "..", "shared")
			if isDir(d) {
				return filepath.Clean(d)
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Path returns the path of elem inside the shared folder, calling t.Skip
// when the folder or the path is absent.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	root := Root()
	if root == "" {
		t.Skip("shared data folder not found (set NNBOUND_SHARED)")
	}
	p := filepath.Join(append([]string{root}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data %s not found", filepath.Join(elem...))
	}
	return p
}

// isDir and isFile report whether p is an existing directory or file.
func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }
func isFile(p string) bool { st, err := os.Stat(p); return err == nil && !st.IsDir() }
