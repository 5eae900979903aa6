package main

import (
	"fmt"
	"io"

	"github.com/nnbound/nnbound/internal/numtext"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/vnnlib"
	"github.com/spf13/pflag"
)

// defaultBox is the input box of the paper: [-1, 1] for every input.
const defaultBox = "-1:1"

// inputFlags are the flags choosing the input box, shared by every command
// that certifies a bound:
//
//	--box LO:HI       every input in [LO, HI] (default -1:1, as in the paper)
//	--lo a,b,...      lower ends, one per input or one for all
//	--hi c,d,...      upper ends, one per input or one for all
//	--vnnlib FILE     the input constraints of a VNN-LIB property
//
// --lo and --hi override --box coordinate by coordinate; --vnnlib excludes
// the other three. A command embeds an inputFlags, calls register on its
// flag set, and calls box once it knows the network's input size.
type inputFlags struct {
	boxFlag string
	lo, hi  string
	vnnlib  string
	fs      *pflag.FlagSet
}

// register adds the flags to fs.
func (f *inputFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.boxFlag, "box", defaultBox, "input box `LO:HI` for every input")
	fs.StringVar(&f.lo, "lo", "", "lower ends of the input box, `a,b,...` (one per input, or one for all)")
	fs.StringVar(&f.hi, "hi", "", "upper ends of the input box, `c,d,...` (one per input, or one for all)")
	fs.StringVar(&f.vnnlib, "vnnlib", "", "read the input box from the input constraints of a VNN-LIB `FILE`")
}

// changed reports whether the user set the named flag.
func (f *inputFlags) changed(name string) bool {
	return f.fs != nil && f.fs.Changed(name)
}

// check reports the usage errors that do not depend on the network (bad
// syntax, NaN, inverted ends, conflicting flags), so that a command can
// fail before reading its models.
func (f *inputFlags) check() error {
	if f.vnnlib != "" {
		for _, name := range []string{"box", "lo", "hi"} {
			if f.changed(name) {
				return usagef("--vnnlib and --%s both give the input box: use one", name)
			}
		}
		return nil
	}
	lo, hi, err := parseRange(f.boxFlag)
	if err != nil {
		return err
	}
	los, err := parseBounds("lo", f.lo)
	if err != nil {
		return err
	}
	his, err := parseBounds("hi", f.hi)
	if err != nil {
		return err
	}
	if len(los) > 1 && len(his) > 1 && len(los) != len(his) {
		return usagef("--lo has %d values but --hi has %d", len(los), len(his))
	}
	n := max(len(los), len(his), 1)
	_, err = assemble(n, lo, hi, los, his)
	return err
}

// box returns the input box for a network with n inputs, and a note to
// print on stderr ("" if none). Errors in the flags are usage errors;
// errors reading a VNN-LIB file are not.
func (f *inputFlags) box(n int) (spec.Box, string, error) {
	if err := f.check(); err != nil {
		return spec.Box{}, "", err
	}
	if f.vnnlib != "" {
		p, err := vnnlib.ReadPropertyFile(f.vnnlib)
		if err != nil {
			return spec.Box{}, "", err
		}
		if p.Pair != nil {
			return spec.Box{}, "", usagef("--vnnlib %s is a VNN-LIB 2.0 two-network property: this command reads the input box of a VNN-LIB 1 property (verify and vnncomp read VNN-LIB 2.0)", f.vnnlib)
		}
		return f.specBox(p.Spec, n)
	}
	lo, hi, _ := parseRange(f.boxFlag)
	los, _ := parseBounds("lo", f.lo)
	his, _ := parseBounds("hi", f.hi)
	for _, l := range []struct {
		name string
		v    []float64
	}{{"lo", los}, {"hi", his}} {
		if len(l.v) > 1 && len(l.v) != n {
			return spec.Box{}, "", usagef("--%s has %d values but the network takes %s", l.name, len(l.v), numtext.Count(n, "input"))
		}
	}
	b, err := assemble(n, lo, hi, los, his)
	return b, "", err
}

// specBox returns the box of vs, the VNN-LIB 1 property read from
// --vnnlib, for a network with n inputs, and a note to print on stderr.
func (f *inputFlags) specBox(vs *vnnlib.Spec, n int) (spec.Box, string, error) {
	if vs.Box.Dim() != n {
		return spec.Box{}, "", fmt.Errorf("%s declares %s but the network takes %d", f.vnnlib, numtext.Count(vs.Box.Dim(), "input"), n)
	}
	note := vs.Note()
	if note != "" {
		note = f.vnnlib + ": " + note
	}
	return vs.Box, note, nil
}

// boxNoted is box, with the note printed on stderr as "nnbound: note".
func (f *inputFlags) boxNoted(n int, stderr io.Writer) (spec.Box, error) {
	return noted(stderr)(f.box(n))
}

// specBoxNoted is specBox, with the note printed as boxNoted prints it.
func (f *inputFlags) specBoxNoted(vs *vnnlib.Spec, n int, stderr io.Writer) (spec.Box, error) {
	return noted(stderr)(f.specBox(vs, n))
}

// noted returns the function that prints a box's note on stderr as
// "nnbound: note" and returns the box.
func noted(stderr io.Writer) func(spec.Box, string, error) (spec.Box, error) {
	return func(b spec.Box, note string, err error) (spec.Box, error) {
		if err == nil && note != "" {
			fmt.Fprintln(stderr, "nnbound: "+note)
		}
		return b, err
	}
}

// assemble builds the box of dimension n from the --box ends and the
// per-input overrides (nil, one value for all, or n values).
func assemble(n int, lo, hi float64, los, his []float64) (spec.Box, error) {
	b := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		b.Lo[i], b.Hi[i] = lo, hi
		if len(los) == 1 {
			b.Lo[i] = los[0]
		} else if len(los) > 1 {
			b.Lo[i] = los[i]
		}
		if len(his) == 1 {
			b.Hi[i] = his[0]
		} else if len(his) > 1 {
			b.Hi[i] = his[i]
		}
		if b.Lo[i] > b.Hi[i] {
			if n == 1 {
				return b, usagef("the input box is inverted: lo %v > hi %v", b.Lo[i], b.Hi[i])
			}
			return b, usagef("the input box is inverted at input %d: lo %v > hi %v", i+1, b.Lo[i], b.Hi[i])
		}
	}
	return b, nil
}
