package onnx

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode, seeded with every ONNX file
// of testdata. Decode must return an error or a network that validates,
// evaluates and round-trips through Write unchanged; it must never panic
// or allocate without bound. Crashers found so far live in
// testdata/fuzz/FuzzDecode and run with the default tests.
func FuzzDecode(f *testing.F) {
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".onnx") {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(data)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeNoPanic(t, data)
	})
}
