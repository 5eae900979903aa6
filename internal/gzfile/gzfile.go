// Package gzfile opens the files nnbound reads (models, VNN-LIB
// properties, SDPA problems) whether or not they are gzip-compressed.
//
// A file is decompressed when it starts with the gzip magic bytes
// 0x1f 0x8b, whatever its name; the decompressed data may not exceed a
// limit the caller gives (MaxSize by default), so that a gzip bomb fails
// with ErrTooLarge instead of filling the memory.
//
// VNN-COMP's benchmark folders ship A.onnx.gz and name A.onnx in their
// instance lists, and an unpacked A.onnx lying beside A.onnx.gz may be
// stale. So for a path that does not end in .gz:
//
//   - when path does not exist but path.gz does, path.gz is read;
//   - when both exist and their (decompressed) contents differ, path.gz is
//     read, and a one-line warning goes to the writer given to SetWarnings
//     (once per path);
//   - otherwise path is read.
package gzfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// MaxSize is the default limit of a file's decompressed size (1 GiB).
const MaxSize = 1 << 30

// ErrTooLarge reports a file whose decompressed data exceed the limit.
var ErrTooLarge = errors.New("decompressed data too large")

// NotRegularError reports a path that is a directory, a device or a pipe:
// Open refuses it before opening it (opening a pipe could block).
type NotRegularError struct {
	Path string
	Dir  bool
}

// Error returns "path is a directory" or "path is not a regular file".
func (e *NotRegularError) Error() string {
	if e.Dir {
		return e.Path + " is a directory"
	}
	return e.Path + " is not a regular file"
}

// magic starts every gzip stream (RFC 1952).
var magic = []byte{0x1f, 0x8b}

// File is an opened input file, decompressed if it was gzipped.
type File struct {
	// Name is the path actually read: the path asked for, or path.gz.
	Name string
	// Gzipped reports whether the file was gzip-compressed.
	Gzipped bool
	r       io.Reader
	f       *os.File
}

// Read reads the (decompressed) content; past the limit it returns an
// error wrapping ErrTooLarge.
func (f *File) Read(p []byte) (int, error) { return f.r.Read(p) }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Open opens the file at path (or path.gz, see the package documentation)
// for reading its content, decompressed when it is gzipped; reading past
// limit bytes (MaxSize when limit <= 0) is an error wrapping ErrTooLarge.
// A file that is not gzipped is read as it is, whatever its size. A path
// that is not a regular file is a *NotRegularError. Errors name the file
// but not this package: callers prefix their own.
func Open(path string, limit int64) (*File, error) {
	if limit <= 0 {
		limit = MaxSize
	}
	name, err := resolve(path, limit)
	if err != nil {
		return nil, err
	}
	return open(name, limit)
}

// ReadFile returns the (decompressed) content of the file at path, read
// as Open does, and the path actually read.
func ReadFile(path string, limit int64) ([]byte, string, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, "", err
	}
	return data, f.Name, nil
}

// open opens name, a regular file, with a gzip reader over it when it
// starts with the magic bytes.
func open(name string, limit int64) (*File, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: name, Dir: st.IsDir()}
	}
	osf, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(osf)
	head, _ := br.Peek(len(magic))
	f := &File{Name: name, r: br, f: osf}
	if bytes.Equal(head, magic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			osf.Close()
			return nil, fmt.Errorf("%s: truncated or corrupt gzip file: %w", name, err)
		}
		f.Gzipped, f.r = true, &limited{r: zr, left: limit, limit: limit, name: name}
	}
	return f, nil
}

// limited reads r until limit bytes have been read, then fails with
// ErrTooLarge if more remain.
type limited struct {
	r     io.Reader
	left  int64
	limit int64
	name  string
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := io.ReadFull(l.r, one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("%s decompresses to more than %s: %w", l.name, sizeText(l.limit), ErrTooLarge)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: truncated or corrupt gzip file: %w", l.name, err)
	}
	return n, err
}

// sizeText writes n bytes in the largest binary unit that divides it.
func sizeText(n int64) string {
	switch {
	case n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// resolve returns the file to read for path (see the package
// documentation).
func resolve(path string, limit int64) (string, error) {
	if strings.HasSuffix(path, ".gz") {
		return path, nil
	}
	gz := path + ".gz"
	if st, err := os.Stat(gz); err != nil || !st.Mode().IsRegular() {
		return path, nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return gz, nil
	}
	same, err := sameContent(path, gz, limit)
	if err != nil || same {
		return path, nil // path's own error, if any, is reported when it is read
	}
	warn(path, fmt.Sprintf("%s differs from %s: reading %s (a compressed file is taken to be the current one)", path, gz, gz))
	return gz, nil
}

// sameContent reports whether the files at a and b have the same
// (decompressed) content.
func sameContent(a, b string, limit int64) (bool, error) {
	fa, err := open(a, limit)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := open(b, limit)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		aEnd := ea == io.EOF || ea == io.ErrUnexpectedEOF
		bEnd := eb == io.EOF || eb == io.ErrUnexpectedEOF
		switch {
		case aEnd && bEnd:
			return true, nil
		case ea != nil && !aEnd:
			return false, ea
		case eb != nil && !bEnd:
			return false, eb
		case aEnd != bEnd:
			return false, nil
		}
	}
}

// warnings is where warnings go, and which paths were warned about.
var warnings struct {
	sync.Mutex
	w    io.Writer
	seen map[string]bool
}

// SetWarnings sends the warnings of Open (a loose file differing from its
// .gz) to w, one line each, at most once per path; nil, the default,
// drops them. A command line tool sets its stderr.
func SetWarnings(w io.Writer) {
	warnings.Lock()
	defer warnings.Unlock()
	warnings.w, warnings.seen = w, map[string]bool{}
}

// warn writes msg to the warnings writer unless path was warned about.
func warn(path, msg string) {
	warnings.Lock()
	defer warnings.Unlock()
	if warnings.w == nil || warnings.seen[path] {
		return
	}
	warnings.seen[path] = true
	fmt.Fprintf(warnings.w, "warning: %s\n", msg)
}
