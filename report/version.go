package report

import "runtime/debug"

// Version returns the module version the running binary was built from,
// or "(devel)" when the build does not record one (a build from a work
// tree, or a test).
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// VersionRecord is the JSON form of the version: {"version": "..."}.
type VersionRecord struct {
	Version string `json:"version"`
}
