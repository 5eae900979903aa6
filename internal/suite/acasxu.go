package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/internal/benchdata"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// ACASMethod is how the ACAS Xu suite bounds an instance.
type ACASMethod int

const (
	// ACASInterval is the difference bound of bound propagation
	// (bounds.Pair, then PairBounds.Margin of the target output).
	ACASInterval ACASMethod = iota
	// ACASSDP is the certificate's SDP (certify.Bound with C = e_t).
	ACASSDP
	// ACASBest runs both and keeps the smaller certified bound.
	ACASBest
)

// ACASMethods lists the methods, in the order of their flag values.
var ACASMethods = []ACASMethod{ACASInterval, ACASSDP, ACASBest}

// String returns the method's flag value.
func (m ACASMethod) String() string {
	switch m {
	case ACASInterval:
		return "interval"
	case ACASSDP:
		return "sdp"
	case ACASBest:
		return "best"
	}
	return fmt.Sprintf("ACASMethod(%d)", int(m))
}

// ACASOptions are the options of the ACAS Xu suite (bench acasxu).
type ACASOptions struct {
	Props, Nets []string
	Method      ACASMethod
	Timeout     time.Duration // limit of one instance's bound
	Solver      string        // "nnbound" or "csdp"
	// Bounds are the options of the interval bound and of the SDP's
	// pre-activation bounds; Bounds.Split is also the input pieces the
	// certificate may split the box into (1: one-shot).
	Bounds bounds.Options
	// Search is the search for the largest difference; Search.Seed is
	// also the certificate's seed.
	Search   search.Options
	JSON     bool
	Out      string // Markdown file, written besides stdout
	Dir      string // the shared benchmarks folder
	DirGiven bool   // Dir was given, not looked up
}

// DefaultACASOptions returns the defaults of bench acasxu: both methods,
// optimised one-shot bounds, a minute per bound and 30 s per search.
func DefaultACASOptions() ACASOptions {
	o := ACASOptions{Props: []string{"3", "4"}, Method: ACASBest, Timeout: 60 * time.Second, Solver: "nnbound",
		Bounds: bounds.DefaultOptions(), Search: search.DefaultOptions()}
	o.Bounds.Method, o.Bounds.Split = bounds.MethodOptimised, 1
	o.Search.Seed, o.Search.TimeLimit = 1, 30*time.Second
	return o
}

// ACASXu bounds, searches and checks the ACAS Xu float16 instances of
// o.Props and o.Nets and prints their table.
func ACASXu(ctx context.Context, stdout, stderr io.Writer, o *ACASOptions) error {
	cfg, cleanup, err := o.config()
	if err != nil {
		return err
	}
	defer cleanup()
	if o.Out != "" {
		if st, err := os.Stat(filepath.Dir(o.Out)); err != nil || !st.IsDir() {
			return UsageError{fmt.Errorf("--out %s: no such folder", o.Out)}
		}
	}
	dir, ok, err := acasDataDir("acasxu", o.Dir, o.DirGiven, stderr)
	if !ok {
		return err
	}
	o.Dir = dir
	insts, err := loadACAS(o.Dir, o.Props, o.Nets)
	if err != nil {
		return err
	}
	run := &acasRun{Method: cfg.method.String(), Solver: o.Solver, Bounds: cfg.bounds.Method.String(), Pieces: o.Bounds.Split,
		Timeout: o.Timeout.String(), SearchTime: o.Search.TimeLimit.String(), CPUs: runtime.NumCPU(), LoadStart: report.Number(loadAverage())}
	for n, inst := range insts {
		row, err := cfg.bench(ctx, inst)
		if err != nil {
			return err
		}
		run.Rows = append(run.Rows, row)
		fmt.Fprintf(stderr, "[%d/%d] %s\n", n+1, len(insts), row.progress())
		if row.violated() {
			fmt.Fprintf(stderr, "bench acasxu: SOUNDNESS VIOLATION: property %s net %s: %s\n", row.Prop, row.Net, row.Sound)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	run.LoadEnd = report.Number(loadAverage())
	run.summarise(o.Props)
	if o.Out != "" {
		if err := atomicfile.Write(o.Out, run.writeMarkdown); err != nil {
			return err
		}
	}
	if o.JSON {
		err = report.WriteJSON(stdout, run)
	} else {
		err = run.writeMarkdown(stdout)
	}
	if err != nil {
		return err
	}
	if run.Violations > 0 {
		return ErrChecksFailed
	}
	return nil
}

// acasConfig is what every instance is bounded and searched with.
type acasConfig struct {
	method  ACASMethod
	bounds  bounds.Options
	cert    certjob.Job    // C is set per instance
	search  search.Options // C is set per instance
	timeout time.Duration
}

// config checks the options and returns the configuration they make, and
// a function that removes the temporary files of the SDP solver.
func (o *ACASOptions) config() (*acasConfig, func(), error) {
	if o.Method < ACASInterval || o.Method > ACASBest {
		return nil, nil, UsageError{fmt.Errorf("--method %v: want interval, sdp or best", o.Method)}
	}
	if o.Timeout <= 0 || o.Search.TimeLimit <= 0 {
		return nil, nil, UsageError{fmt.Errorf("--timeout %v, --search-time %v: want both > 0", o.Timeout, o.Search.TimeLimit)}
	}
	if o.Bounds.Split < 1 {
		return nil, nil, UsageError{fmt.Errorf("--pieces %d: want 1 or more", o.Bounds.Split)}
	}
	solve, cleanup, err := acasSolver(o.Solver)
	if err != nil {
		return nil, nil, err
	}
	cfg := &acasConfig{method: o.Method, bounds: o.Bounds, cert: certjob.Default(), search: o.Search, timeout: o.Timeout}
	c := &cfg.cert
	c.Method, c.Pairing, c.Bounds, c.Seed, c.Solve = certify.MethodSDP, spec.SameInput, o.Bounds.Method, o.Search.Seed, solve
	c.Refine.MaxPieces = o.Bounds.Split
	return cfg, cleanup, nil
}

// acasDataDir returns the peers' benchmark folder for the bench command
// name: dir when given, else the shared folder's data/benchmarks. ok is
// false when there is nothing to do: with an error when a given dir has no
// properties.json, with a note on stderr when no folder was found.
func acasDataDir(name, dir string, dirGiven bool, stderr io.Writer) (string, bool, error) {
	if dir == "" && !dirGiven {
		if root := shared.Root(); root != "" {
			dir = filepath.Join(root, "data", "benchmarks")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "properties.json")); dir == "" || err != nil {
		if dirGiven {
			return "", false, fmt.Errorf("--data %s: no properties.json there", dir)
		}
		fmt.Fprintf(stderr, "bench %s: shared benchmark folder not found (set NNBOUND_SHARED or --data); nothing to do\n", name)
		return "", false, nil
	}
	return dir, true, nil
}

// loadACAS returns the instances of props on nets of the benchmark folder
// dir (benchdata.LoadACAS, the float64 boxes); an unknown property or net
// is a usage error.
func loadACAS(dir string, props, nets []string) ([]*benchdata.ACASInstance, error) {
	insts, err := benchdata.LoadACAS(dir, props, nets, benchdata.Float64)
	if errors.Is(err, benchdata.ErrUnknown) {
		return nil, UsageError{err}
	}
	return insts, err
}
