package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.txt")
	if err := WriteFile(p, []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("second")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "second" {
		t.Fatalf("read %q, %v; want \"second\"", got, err)
	}
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := WriteFile(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "old" {
		t.Errorf("destination changed to %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}

func TestWriteMissingDirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "such", "dir", "out.txt")
	err := WriteFile(p, nil)
	if err == nil {
		t.Fatal("no error for a missing directory")
	}
	if want := "cannot create " + p + ": no such file or directory"; err.Error() != want {
		t.Errorf("error %q, want %q (no temporary file named)", err, want)
	}
}

// TestProbe: a directory that takes files passes and is left empty; one
// that does not exist fails, naming it.
func TestProbe(t *testing.T) {
	dir := t.TempDir()
	if err := Probe(dir); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Probe left %v", entries)
	}
	missing := filepath.Join(dir, "none")
	if err := Probe(missing); err == nil || err.Error() != "cannot create files in "+missing+": no such file or directory" {
		t.Errorf("Probe of a missing directory: %v", err)
	}
}

// TestErrorNamesTheFile: an error of the writer that names the temporary
// file names the destination instead.
func TestErrorNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.txt")
	err := Write(p, func(w io.Writer) error {
		return &os.PathError{Op: "write", Path: w.(*os.File).Name(), Err: errors.New("disk full")}
	})
	if err == nil || err.Error() != "write "+p+": disk full" {
		t.Errorf("error %v, want it to name %s", err, p)
	}
}
