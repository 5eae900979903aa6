package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuantiseInt8SaveNNet checks that the int8 copy of an NNet file in
// raw units is saved when its clipping and normalisation are float32
// values (tiny.nnet), and otherwise refused in one line that says why
// and what to do, leaving no file behind; --core then saves it.
func TestQuantiseInt8SaveNNet(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(tinyNNet)
	if err != nil {
		t.Fatal(err)
	}
	thirds := filepath.Join(dir, "thirds.nnet") // input range 3: 1/3 is not a float32 value
	if err := os.WriteFile(thirds, bytes.Replace(data, []byte("\n2.0,4.0,8.0,"), []byte("\n3.0,4.0,8.0,"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model, out string
		core       bool
		code       int
		stderr     string
	}{
		{tinyNNet, "tiny.onnx", false, exitOK, ""},
		{thirds, "thirds.onnx", false, exitFail, "--core saves the copy of the normalised core network"},
		{thirds, "thirds-core.onnx", true, exitOK, ""},
	} {
		out := filepath.Join(dir, tc.out)
		args := []string{"quantise", tc.model, "--scheme", "int8", "--save", out}
		if tc.core {
			args = append(args, "--core")
		}
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) || strings.Count(stderr.String(), "\n") > 1 {
			t.Fatalf("%v: exit %d, want %d; stderr %q, want one line with %q", args, code, tc.code, stderr.String(), tc.stderr)
		}
		_, err := os.Stat(out)
		if saved := err == nil; saved != (tc.code == exitOK) {
			t.Errorf("%v: saved %v, exit %d", args, saved, code)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 { // thirds.nnet, tiny.onnx, thirds-core.onnx
		t.Errorf("the directory holds %d files, want 3 (no temporary file left)", len(entries))
	}
}
