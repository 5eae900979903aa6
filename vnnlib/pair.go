package vnnlib

import (
	"fmt"
	"io"

	"github.com/nnbound/nnbound/internal/gzfile"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// This file reads the VNN-LIB 2.0 two-network properties of the
// equivalence benchmarks, such as
//
//	(vnnlib-version <2.0>)
//	(declare-network f
//	    (declare-input X_f real [5])
//	    (declare-output Y_f real [5]))
//	(declare-network g
//	    (isomorphic-to f)
//	    (declare-input X_g real [5])
//	    (declare-output Y_g real [5]))
//	(assert (and (<= X_f[0] 0.68) (>= X_f[0] 0.6)))
//	...
//	(assert (== X_f[0] X_g[0]))
//	...
//	(assert (and (<= Y_g[0] (+ Y_f[0] 0.05)) (>= Y_g[0] (- Y_f[0] 0.05))))
//
// ReadPair accepts:
//
//   - (vnnlib-version <2.0>) as the first command (Version tells the
//     versions apart);
//   - exactly two (declare-network NAME ...), the first read as f and the
//     second as g, each with one (declare-input NAME TYPE [SHAPE]), one
//     (declare-output NAME TYPE [SHAPE]) and optionally (isomorphic-to F)
//     naming the network declared before it. TYPE is real, float16, float32
//     or float64 (the box is read over the reals, which contain the
//     floating-point values); SHAPE is a comma-separated list of sizes
//     without spaces, [5] or [1,28,28], and variables are indexed as
//     X_f[0] or X_f[0,3,4] (row-major);
//   - assertions that are conjunctions (and) of comparison chains
//     (<=, >=, <, >, == or =) between linear terms (+, -, a constant times
//     a variable, a variable divided by a constant) of one of the forms
//
//     X[i] rel c or c rel X[i]          a bound of one input coordinate
//     (== X_f[i] X_g[i]), either way    the networks read the same input
//     Y_g[k] - Y_f[k] rel c             a bound on the output difference
//
//     with every variable's coefficient +1 or -1 once the terms are
//     collected (Y_g[k] <= Y_f[k] + 0.05 is Y_g[k] - Y_f[k] <= 0.05).
//     Constant arithmetic is float64, rounded to nearest.
//
// Reading. The input assertions define the input set: every coordinate of
// f's input needs a lower and an upper bound. Either every coordinate is
// equated with g's (Pair.Same; g's own bounds, if any, narrow the box) or
// none is and g's input has a box of its own (Pair.BoxG). The output
// assertions are the property the user wants to hold, read as VNN-COMP
// reads these benchmarks: the property is violated ("sat", a
// counterexample exists) iff some input of the set has, for some
// constrained k, Y_g[k] - Y_f[k] outside [Lo_k, Hi_k]; it holds ("unsat")
// iff every input keeps every difference inside. Strict relations (<, >)
// are kept as such in spec.OutputBound.StrictLo and StrictHi; on inputs they
// are read as closed (a bound over the closure of a set holds on the set).
//
// Two readings. A file whose output assertions are a conjunction of
// bounds on Y_g[k] - Y_f[k], each bounded on both sides, with every input
// coordinate equated or none (the equivalence benchmarks) is read as
// above, into Pair.Property. Any other file is read in VNN-LIB's own
// reading, where the assertions together describe a counterexample, into
// Pair.Relational (relational.go): one-sided output bounds (Y_g[3] <
// Y_f[3], the unsafe output of a monotonicity property), disjunctions of
// output constraints, any linear comparison of outputs, links X_g[i] -
// X_f[i] rel c on some coordinates, and (equal-to f).
//
// Everything else is an *Error naming the line and the construct: a
// disjunction involving inputs, a comparison mixing inputs and outputs,
// different coordinates (X_f[0] == X_g[1]), shapes of f and g that
// disagree, an unknown name or index, and any other command.

// Tensor is a declared input or output of a network.
type Tensor struct {
	Name  string
	Type  string // real, float16, float32 or float64
	Shape []int
	Line  int
}

// Size returns the number of elements of t.
func (t Tensor) Size() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Network is a network declared by (declare-network NAME ...).
type Network struct {
	Name          string
	Input, Output Tensor
	// IsomorphicTo names the network this one is declared isomorphic to
	// (same architecture), or is "".
	IsomorphicTo string
	// EqualTo names the network this one is declared equal to (the same
	// network: g is f), or is "".
	EqualTo string
	Line    int
}

// Pair is a VNN-LIB 2.0 property over two networks f and g: the
// networks' declarations and the property they state. A file of the
// equivalence subset above is read as spec.Property (the output
// assertions state what must hold; Relational is nil); any other file
// VNN-LIB 2.0 allows here is read in VNN-LIB's counterexample reading
// into Relational (relational.go), and the embedded Property is then
// empty.
type Pair struct {
	F, G Network
	spec.Property
	// Relational is the property of a file outside the equivalence
	// subset, nil for one inside it.
	Relational *spec.Relational
}

// Sized is a network as CheckNetworks sees it: a chain (*nn.Network) or
// a graph (*nn.Graph).
type Sized interface {
	InputSize() int
	OutputSize() int
}

// CheckNetworks checks that f and g take and return as many values as the
// property declares.
func (p *Pair) CheckNetworks(f, g Sized) error {
	for _, c := range []struct {
		decl Network
		net  Sized
	}{{p.F, f}, {p.G, g}} {
		if n := c.net.InputSize(); n != c.decl.Input.Size() {
			return fmt.Errorf("vnnlib: network %s takes %d inputs but the property declares %s with %d (line %d): %w",
				c.decl.Name, n, c.decl.Input.Name, c.decl.Input.Size(), c.decl.Input.Line, nn.ErrDimension)
		}
		if n := c.net.OutputSize(); n != c.decl.Output.Size() {
			return fmt.Errorf("vnnlib: network %s returns %d outputs but the property declares %s with %d (line %d): %w",
				c.decl.Name, n, c.decl.Output.Name, c.decl.Output.Size(), c.decl.Output.Line, nn.ErrDimension)
		}
	}
	return nil
}

// ReadPairFile reads the VNN-LIB 2.0 two-network property in the file at
// path. Errors name the file by its base name.
func ReadPairFile(path string) (*Pair, error) { return readFile(path, ReadPair) }

// ReadPair reads a VNN-LIB 2.0 two-network property from r; name is the
// file name used in errors.
func ReadPair(r io.Reader, name string) (*Pair, error) {
	rd := newReader(r, name)
	n, err := rd.next()
	if err != nil {
		return nil, err
	}
	return readPair(rd, n, name)
}

// readPair reads a two-network property whose first command, n, rd has
// read.
func readPair(rd *reader, n *node, name string) (*Pair, error) {
	p := newPairParser(name)
	if n != nil && n.head() != "vnnlib-version" {
		return nil, p.errorf(n.line, ErrUnsupported, "a two-network property starts with (vnnlib-version <2.0>), got %s", n)
	}
	if err := readAll(rd, n, p); err != nil {
		return nil, err
	}
	return p.pair()
}

// Version returns the VNN-LIB version of the property in r: "2.0" when its
// first command is (vnnlib-version <2.0>) and "1" when the file has no
// such command (VNN-LIB 1 has none). It reads only the first command;
// other versions and malformed text are an error.
func Version(r io.Reader, name string) (string, error) {
	n, err := newReader(r, name).next()
	if err != nil {
		return "", err
	}
	if n == nil || n.head() != "vnnlib-version" {
		return "1", nil
	}
	return parseVersion(&parser{name: name}, n)
}

// parseVersion reads (vnnlib-version <2.0>).
func parseVersion(p *parser, n *node) (string, error) {
	if len(n.list) != 2 || n.list[1].isList {
		return "", p.errorf(n.line, ErrSyntax, "want (vnnlib-version <2.0>), got %s", n)
	}
	if v := n.list[1].atom; v != "<2.0>" {
		return "", p.errorf(n.line, ErrUnsupported, "VNN-LIB version %s is not supported (want <2.0>)", v)
	}
	return "2.0", nil
}

// Open opens the file at path for reading (see openFile).
func Open(path string) (io.ReadCloser, error) { return openFile(path) }

// openFile opens path for reading, refusing a directory or a device. A
// gzipped file is decompressed (at most gzfile.MaxSize bytes), and path.gz
// is read instead of path when path is missing or differs from it; see
// internal/gzfile.
func openFile(path string) (*gzfile.File, error) {
	f, err := gzfile.Open(path, 0)
	if err != nil {
		return nil, fmt.Errorf("vnnlib: %w", err)
	}
	return f, nil
}
