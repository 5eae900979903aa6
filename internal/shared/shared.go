// Package shared locates the team's shared data folder for tests and bench
// commands, and reads the JSON reference samples kept there. The folder
// holds third-party files (SDPLIB, ACAS Xu networks, peer benchmarks) that
// are never copied into the repository.
//
// The folder is "../shared" relative to the repository root, or the
// directory named by the environment variable NNBOUND_SHARED. Commands find
// it with Root; tests reach a file with sharedtest.Path, which skips the
// test when it is absent, and read reference samples with
// sharedtest.ReadJSON:
//
//	samples := sharedtest.ReadJSON[map[string]any](t, sharedtest.Path(t, "data", "networks", "paper", "samples.json"))
package shared

import (
	"os"
	"path/filepath"
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

// isDir and isFile report whether p is an existing directory or file.
func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }
func isFile(p string) bool { st, err := os.Stat(p); return err == nil && !st.IsDir() }
