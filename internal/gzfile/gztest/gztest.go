// Package gztest writes gzipped files for the tests of the packages that
// read them.
package gztest

import (
	"bytes"
	"compress/gzip"
	"os"
	"testing"
)

// Bytes returns data gzip-compressed.
func Bytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// WriteFile writes data gzip-compressed to path and returns path.
func WriteFile(t testing.TB, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, Bytes(t, data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
