package gzfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/gzfile/gztest"
)

// write writes the named files into a new directory and returns it.
func write(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadFile(t *testing.T) {
	old, cur := []byte("old content\n"), []byte("current content\n")
	tests := []struct {
		name     string
		files    map[string][]byte
		ask      string
		want     []byte
		wantName string
		warned   bool
	}{
		{"plain", map[string][]byte{"a.txt": cur}, "a.txt", cur, "a.txt", false},
		{"gz by name", map[string][]byte{"a.txt.gz": gztest.Bytes(t, cur)}, "a.txt.gz", cur, "a.txt.gz", false},
		{"gz by content", map[string][]byte{"a.txt": gztest.Bytes(t, cur)}, "a.txt", cur, "a.txt", false},
		{"only the gz", map[string][]byte{"a.txt.gz": gztest.Bytes(t, cur)}, "a.txt", cur, "a.txt.gz", false},
		{"loose same as gz", map[string][]byte{"a.txt": cur, "a.txt.gz": gztest.Bytes(t, cur)}, "a.txt", cur, "a.txt", false},
		{"loose stale", map[string][]byte{"a.txt": old, "a.txt.gz": gztest.Bytes(t, cur)}, "a.txt", cur, "a.txt.gz", true},
		{"loose a prefix", map[string][]byte{"a.txt": cur[:4], "a.txt.gz": gztest.Bytes(t, cur)}, "a.txt", cur, "a.txt.gz", true},
		{"gz asked", map[string][]byte{"a.txt": old, "a.txt.gz": gztest.Bytes(t, cur)}, "a.txt.gz", cur, "a.txt.gz", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, tc.files)
			var w bytes.Buffer
			SetWarnings(&w)
			defer SetWarnings(nil)
			for range 2 { // the second read warns no more
				data, name, err := ReadFile(filepath.Join(dir, tc.ask), 0)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(data, tc.want) || name != filepath.Join(dir, tc.wantName) {
					t.Errorf("read %q from %s, want %q from %s", data, name, tc.want, tc.wantName)
				}
			}
			if got := strings.Count(w.String(), "\n"); got != map[bool]int{false: 0, true: 1}[tc.warned] {
				t.Errorf("warnings %q", w.String())
			}
			if tc.warned && !strings.Contains(w.String(), "reading "+filepath.Join(dir, tc.wantName)) {
				t.Errorf("warning %q does not name the file read", w.String())
			}
		})
	}
}

func TestReadFileErrors(t *testing.T) {
	bomb := gztest.Bytes(t, make([]byte, 1<<20))
	full := gztest.Bytes(t, []byte("some text that the truncation cuts\n"))
	dir := write(t, map[string][]byte{"bomb.gz": bomb, "cut.gz": full[:len(full)-6], "bad.gz": {0x1f, 0x8b, 0}})
	tests := []struct {
		file  string
		limit int64
		is    error
		msg   string
	}{
		{"bomb.gz", 1 << 19, ErrTooLarge, "bomb.gz decompresses to more than 512 KiB"},
		{"cut.gz", 0, io.ErrUnexpectedEOF, "cut.gz: truncated or corrupt gzip file: unexpected EOF"},
		{"bad.gz", 0, nil, "bad.gz: truncated or corrupt gzip file: unexpected EOF"},
		{"missing", 0, os.ErrNotExist, "missing"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, _, err := ReadFile(filepath.Join(dir, tc.file), tc.limit)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
	// exactly at the limit is fine
	if data, _, err := ReadFile(filepath.Join(dir, "bomb.gz"), 1<<20); err != nil || len(data) != 1<<20 {
		t.Errorf("at the limit: %d bytes, %v", len(data), err)
	}
}

// TestNotRegular: a directory or a device is refused before it is opened
// (opening a named pipe would block).
func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]bool{dir: true}
	if st, err := os.Stat(os.DevNull); err == nil && !st.Mode().IsRegular() {
		paths[os.DevNull] = false
	}
	for path, isDir := range paths {
		_, _, err := ReadFile(path, 0)
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Dir != isDir || nr.Path != path {
			t.Errorf("%s: error %v", path, err)
		}
	}
}
