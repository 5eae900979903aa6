package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/gzfile/gztest"
)

// TestGzipInputs runs commands on gzipped models and properties: read by
// name or by content, the .gz preferred to a differing unpacked file
// beside it with one warning line, a corrupt .gz one clear error.
func TestGzipInputs(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	gz := func(name string, data []byte) { gztest.WriteFile(t, in(name), data) }
	sin, err := os.ReadFile(sin3x)
	if err != nil {
		t.Fatal(err)
	}
	tanh, err := os.ReadFile(tanh2)
	if err != nil {
		t.Fatal(err)
	}
	gz("f.onnx.gz", sin)
	gz("g.onnx", sin) // gzipped under the plain name
	os.WriteFile(in("stale.onnx"), tanh, 0o644)
	gz("stale.onnx.gz", sin)
	gz("s.vnnlib.gz", []byte("(declare-const X_0 Real)\n(assert (>= X_0 -0.5))\n(assert (<= X_0 0.5))\n"))
	os.WriteFile(in("cut.onnx.gz"), []byte{0x1f, 0x8b, 8, 0}, 0o644)

	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring of stdout
		stderr string // stderr, exactly
	}{
		{"gz by name", []string{"verify", in("f.onnx.gz"), in("g.onnx"), "--vnnlib", in("s.vnnlib.gz"), "--epsilon", "0.5"}, exitOK, "holds", ""},
		{"loose name of a gz", []string{"verify", in("f.onnx"), in("g.onnx"), "--vnnlib", in("s.vnnlib"), "--epsilon", "0.5"}, exitOK, "holds", ""},
		{"stale loose file", []string{"inspect", in("stale.onnx")}, exitOK, "stale.onnx.gz",
			"warning: " + in("stale.onnx") + " differs from " + in("stale.onnx.gz") + ": reading " + in("stale.onnx.gz") + " (a compressed file is taken to be the current one)\n"},
		{"corrupt gz", []string{"inspect", in("cut.onnx.gz")}, exitFail, "", "nnbound: modelfile: " + in("cut.onnx.gz") + ": truncated or corrupt gzip file: unexpected EOF\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || stderr.String() != tc.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}
