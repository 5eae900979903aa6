// Package atomicfile writes output files so that an interrupted run never
// leaves a half-written file: the content goes to a temporary file in the
// same directory, which is synced and then renamed over the destination.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Write calls write with a writer on a temporary file next to path and, if
// write and the flush succeed, renames the temporary file to path. On any
// error the temporary file is removed and path is left untouched.
func Write(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", path, tempErr(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return hideTemp(err, path, tmp)
	}
	if err = f.Sync(); err == nil {
		err = f.Close()
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, hideTemp(err, path, tmp))
	}
	return nil
}

// Probe reports whether files can be made in the directory dir, as Write
// makes them: it creates a temporary file there and removes it. A command
// calls it before its work, so that an unwritable output directory is
// not found only at the end.
func Probe(dir string) error {
	f, err := os.CreateTemp(dir, ".nnbound-probe-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s: %w", dir, tempErr(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// tempErr returns the reason of an error of os.CreateTemp without the
// temporary file's name, which is none of the user's business.
func tempErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// hideTemp returns err with the temporary file's name replaced by path's,
// so that errors name the file the user asked for. Errors of the os
// package keep their type; others that name it are flattened to text.
func hideTemp(err error, path, tmp string) error {
	if pe, ok := err.(*os.PathError); ok && pe.Path == tmp {
		c := *pe
		c.Path = path
		return &c
	}
	if le, ok := err.(*os.LinkError); ok && le.Old == tmp {
		return &os.PathError{Op: "rename", Path: path, Err: le.Err}
	}
	if strings.Contains(err.Error(), tmp) {
		return errors.New(strings.ReplaceAll(err.Error(), tmp, path))
	}
	return err
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
