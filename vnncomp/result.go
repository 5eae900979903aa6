package vnncomp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Result is how an instance ended, in VNN-COMP's words, and the first
// line of its result file.
type Result string

// The results of an instance.
const (
	// Unsat: no input of the specification's set violates it (the bound
	// holds).
	Unsat Result = "unsat"
	// Sat: a counterexample violates the specification; the result file
	// gives it.
	Sat Result = "sat"
	// Timeout: the time limit ran out first.
	Timeout Result = "timeout"
	// Unknown: the method finished without an answer.
	Unknown Result = "unknown"
	// Error: the instance could not be run (missing file, unsupported
	// network, a bug); the log says why.
	Error Result = "error"
)

// results lists the results in the order of the summary table.
var results = []Result{Unsat, Sat, Timeout, Unknown, Error}

// valid reports whether r is one of the five results.
func (r Result) valid() bool {
	for _, v := range results {
		if r == v {
			return true
		}
	}
	return false
}

// Outcome is what a Decider returns for one instance.
type Outcome struct {
	Result  Result
	Witness *Witness      // for Sat, the counterexample; nil otherwise
	Err     error         // for Error, why; for Timeout and Unknown, optionally why
	Time    time.Duration // time taken; 0 lets Run measure it
	Detail  any           // anything for the log (bounds, node counts): marshalled to JSON
}

// Decider decides one instance. It must return when ctx is done (ctx
// carries the instance's time limit), and must re-evaluate any
// counterexample it returns on the networks themselves: Run checks that a
// witness is well formed, not that it is right.
type Decider func(ctx context.Context, in Instance) Outcome

// Var is the value of one variable of a specification in a witness: a
// network's input or output tensor as the VNN-LIB file declares it.
type Var struct {
	Name   string    // as declared, for example X_f or Y_g
	Type   string    // element type as declared: real, float32 or float64
	Shape  []int     // as declared, for example [5]; empty for a scalar
	Values []float64 // row-major, one per element
}

// Syntax selects how a witness is written.
type Syntax int

// The syntaxes of a witness.
const (
	// VNNLIB2 is the textual assignment of VNN-LIB 2.0, which VNN-COMP's
	// scorer reads for VNN-LIB 2.0 queries: after the line "sat", each
	// variable in the order the query declares them (each network's
	// inputs, then its outputs) as a line "NAME TYPE [d1,d2,...]"
	// followed by one value per line.
	VNNLIB2 Syntax = iota
	// VNNLIB1 is the older form for VNN-LIB 1.0 queries with one network:
	// ((X_0 v) (X_1 v) ... (Y_0 v) ...), where a Var named X with n
	// values stands for X_0 ... X_{n-1}.
	VNNLIB1
)

// Witness is the counterexample of a Sat outcome: the value of every
// input and every output of every network of the instance, in the order
// the specification declares them.
type Witness struct {
	Syntax Syntax
	Vars   []Var
}

// Check reports whether w can be written faithfully: at least one
// variable, distinct names without spaces or parentheses, a known type, a
// shape matching the number of values, and finite values, each exactly
// representable in the declared type (a float32 variable's value must be
// a float32: the scorer would otherwise round it and evaluate the
// networks at another point).
func (w *Witness) Check() error {
	if w == nil || len(w.Vars) == 0 {
		return errors.New("empty witness")
	}
	seen := map[string]bool{}
	for _, v := range w.Vars {
		if v.Name == "" || strings.ContainsAny(v.Name, " \t\r\n()[]") {
			return fmt.Errorf("witness variable name %q is empty or has spaces, parentheses or brackets", v.Name)
		}
		if seen[v.Name] {
			return fmt.Errorf("witness variable %s given twice", v.Name)
		}
		seen[v.Name] = true
		if err := v.check(); err != nil {
			return fmt.Errorf("witness variable %s: %w", v.Name, err)
		}
	}
	return nil
}

// check is Check for one variable.
func (v Var) check() error {
	switch v.Type {
	case "real", "float32", "float64":
	default:
		return fmt.Errorf("element type %q is not real, float32 or float64", v.Type)
	}
	n := 1
	for _, d := range v.Shape {
		if d < 1 {
			return fmt.Errorf("shape %v has a dimension below 1", v.Shape)
		}
		n *= d
	}
	if n != len(v.Values) {
		return fmt.Errorf("shape %v holds %d values, got %d", v.Shape, n, len(v.Values))
	}
	for i, x := range v.Values {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("value %d is %v", i, x)
		}
		if v.Type == "float32" && float64(float32(x)) != x {
			return fmt.Errorf("value %d = %s is not a float32", i, format(x))
		}
	}
	return nil
}

// format writes x with the fewest digits that read back as exactly x.
func format(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// writeResult writes a result file: the result on the first line and, for
// Sat, the witness after it.
func writeResult(w io.Writer, r Result, wit *Witness) error {
	var b strings.Builder
	b.WriteString(string(r))
	b.WriteByte('\n')
	if r == Sat {
		wit.writeTo(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTo appends the witness in its syntax; w must have passed Check.
func (w *Witness) writeTo(b *strings.Builder) {
	if w.Syntax == VNNLIB1 {
		b.WriteByte('(')
		first := true
		for _, v := range w.Vars {
			for i, x := range v.Values {
				if !first {
					b.WriteString("\n ")
				}
				first = false
				fmt.Fprintf(b, "(%s_%d %s)", v.Name, i, format(x))
			}
		}
		b.WriteString(")\n")
		return
	}
	for _, v := range w.Vars {
		dims := make([]string, len(v.Shape))
		for i, d := range v.Shape {
			dims[i] = strconv.Itoa(d)
		}
		fmt.Fprintf(b, "%s %s [%s]\n", v.Name, v.Type, strings.Join(dims, ","))
		for _, x := range v.Values {
			b.WriteString(format(x))
			b.WriteByte('\n')
		}
	}
}

// vet turns an outcome that contradicts itself into an Error outcome
// saying why, keeping its time and detail: a result that is not one of
// the five, Sat without a valid witness, a witness with another result,
// or Error without a reason. It never changes a consistent outcome.
func vet(o Outcome) Outcome {
	bad := func(format string, a ...any) Outcome {
		return Outcome{Result: Error, Err: fmt.Errorf("decider: "+format, a...), Time: o.Time, Detail: o.Detail}
	}
	switch {
	case !o.Result.valid():
		return bad("result %q is not unsat, sat, timeout, unknown or error", o.Result)
	case o.Result == Error && o.Err == nil:
		return bad("result error without a reason")
	case (o.Result == Sat || o.Result == Unsat) && o.Err != nil:
		return bad("result %s with an error: %v", o.Result, o.Err)
	case o.Result == Sat && o.Witness == nil:
		return bad("result sat without a counterexample")
	case o.Result != Sat && o.Witness != nil:
		return bad("result %s with a counterexample", o.Result)
	case o.Result == Sat:
		if err := o.Witness.Check(); err != nil {
			return bad("result sat with a malformed counterexample: %v", err)
		}
	}
	return o
}
