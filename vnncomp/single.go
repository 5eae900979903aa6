package vnncomp

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/nnbound/nnbound/internal/atomicfile"
)

// RunInstance decides one instance as VNN-COMP's run_instance.sh does:
// networks is the row's first field as the harness passes it (a bare
// path, or the quoted list "[('f', 'a.onnx'), ('g', 'b.onnx')]"), spec
// the VNN-LIB file, and the result file at out is written atomically
// whatever happens: the outcome of decide under the time limit, timeout
// for a sat or unsat found after it (Late), error for an instance that
// cannot run or a decider that fails or contradicts itself. Paths are
// used as given. The outcome is returned; the error is a failure to
// write out.
func RunInstance(ctx context.Context, networks, spec, out string, timeout time.Duration, decide Decider) (Outcome, error) {
	r := &runner{decide: decide, scale: 1}
	o := Outcome{Result: Error}
	nets, err := parseNetworks(networks)
	in := Instance{Networks: nets, Spec: spec, Timeout: timeout}
	switch {
	case err != nil:
		o.Err = err
	case !(timeout > 0):
		o.Err = fmt.Errorf("vnncomp: time limit %v, want positive", timeout)
	default:
		if err := checkFiles(in); err != nil {
			o.Err = err
			break
		}
		var limit time.Duration
		o, limit = r.call(ctx, in)
		o = Late(vet(o), limit)
	}
	if err := atomicfile.Write(out, func(w io.Writer) error { return writeResult(w, o.Result, o.Witness) }); err != nil {
		return o, fmt.Errorf("vnncomp: %w", err)
	}
	return o, nil
}
