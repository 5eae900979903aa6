package vnnlib

import (
	"io"
	"path/filepath"
)

// Property is a VNN-LIB file read once: the input set of a VNN-LIB 1
// property (Spec) or a VNN-LIB 2.0 two-network property (Pair). Exactly
// one of the two is set.
type Property struct {
	Spec *Spec
	Pair *Pair
}

// Version returns "2.0" for a two-network property and "1" otherwise.
func (p *Property) Version() string {
	if p.Pair != nil {
		return "2.0"
	}
	return "1"
}

// ReadProperty reads a property of either version from r in one pass: a
// file whose first command is (vnnlib-version <2.0>) is read as ReadPair
// reads it, any other as Read does. name is the file name used in errors.
func ReadProperty(r io.Reader, name string) (*Property, error) {
	rd := newReader(r, name)
	n, err := rd.next()
	if err != nil {
		return nil, err
	}
	if n != nil && n.head() == "vnnlib-version" {
		p, err := readPair(rd, n, name)
		if err != nil {
			return nil, err
		}
		return &Property{Pair: p}, nil
	}
	s, err := readSpec(rd, n, name)
	if err != nil {
		return nil, err
	}
	return &Property{Spec: s}, nil
}

// ReadPropertyFile reads the property in the file at path (see
// ReadProperty), opening it once. Errors name the file by its base name.
func ReadPropertyFile(path string) (*Property, error) { return readFile(path, ReadProperty) }

// readFile opens the file at path and reads it with read, naming it by
// the base name of the file read (path or path.gz).
func readFile[T any](path string, read func(io.Reader, string) (*T, error)) (*T, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, filepath.Base(f.Name))
}

// commander handles the top-level commands of a file.
type commander interface {
	command(n *node) error
}

// readAll passes n, then every further command of rd, to c.
func readAll(rd *reader, n *node, c commander) error {
	for n != nil {
		if err := c.command(n); err != nil {
			return err
		}
		var err error
		if n, err = rd.next(); err != nil {
			return err
		}
	}
	return nil
}
