package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// acasMethod is how "bench acasxu" bounds an instance.
type acasMethod int

const (
	// acasInterval is the difference bound of bound propagation
	// (bounds.Pair, then PairBounds.Margin of the target output).
	acasInterval acasMethod = iota
	// acasSDP is the certificate's SDP (certify.Bound with C = e_t).
	acasSDP
	// acasBest runs both and keeps the smaller certified bound.
	acasBest
)

// String returns the method's flag value.
func (m acasMethod) String() string {
	switch m {
	case acasInterval:
		return "interval"
	case acasSDP:
		return "sdp"
	case acasBest:
		return "best"
	}
	return fmt.Sprintf("acasMethod(%d)", int(m))
}

// parseACASMethod returns the method named s.
func parseACASMethod(s string) (acasMethod, error) {
	for _, m := range []acasMethod{acasInterval, acasSDP, acasBest} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, usageError{fmt.Errorf("--method %q: want interval, sdp or best", s)}
}

// acasOptions are the flags of "bench acasxu".
type acasOptions struct {
	Props, Nets []string
	Method      string
	Timeout     time.Duration // limit of one instance's bound
	Search      time.Duration // limit of one instance's search
	Seed        uint64
	Solver      string // "nnbound" or "csdp"
	Bounds      string // bounds.Method of the interval bound and the SDP's pre-activation bounds
	Pieces      int    // input pieces allowed; 1 is one-shot
	JSON        bool
	Out         string // Markdown file, written besides stdout
	Dir         string // the shared benchmarks folder
}

func newACASXuCmd() *cobra.Command {
	o := acasOptions{Props: []string{"3", "4"}, Method: acasBest.String(), Timeout: 60 * time.Second,
		Search: 30 * time.Second, Seed: 1, Solver: "nnbound", Bounds: bounds.MethodOptimised.String(), Pieces: 1}
	cmd := &cobra.Command{
		Use:   "acasxu",
		Short: "Bound |f'_t - f_t| on the peers' ACAS Xu float16 instances and compare with NeuroDiff and ReluDiff+",
		Long: `For each instance (property, net) of the ACAS Xu float16 benchmark of
ReluDiff and NeuroDiff — f the ACAS Xu core network, f' its 16-bit copy as
the peers shipped it, x in the property's normalised box — certify a bound
on |f'_t(x) - f_t(x)| for the property's target output t, search for the
largest difference attained, and print a Markdown table next to the peers'
first-pass bounds (eps 0.05 runs) and the data's own largest difference.

Methods: interval (bound propagation of both networks and of their
difference, --bounds interval|symbolic|optimised), sdp (the certificate's
SDP), best (both; the smaller bound). Bounds are one-shot by default, over
the whole box like the peers' first pass; --pieces N lets both methods
split the box into up to N pieces.

Every bound is checked against every difference attained (ours and the
data's); a violation is reported on stderr and the exit status is 1. The
shared benchmark folder is data/benchmarks of the shared folder
(NNBOUND_SHARED), or --data; when it is absent the command says so and does
nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runACASXu(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &o, cmd.Flags().Changed("data"))
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Props, "props", o.Props, "ACAS Xu properties")
	f.StringSliceVar(&o.Nets, "nets", nil, "nets i_j (default: every net each property was run on)")
	f.StringVar(&o.Method, "method", o.Method, "bound: interval, sdp or best")
	duration.Var(f, &o.Timeout, "timeout", "time limit of one instance's bound (best falls back to interval)")
	duration.Var(f, &o.Search, "search-time", "time limit of one instance's search for the largest difference")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the searches")
	f.StringVar(&o.Solver, "solver", o.Solver, "SDP solver of the certificates: nnbound or csdp (the check is the same)")
	f.StringVar(&o.Bounds, "bounds", o.Bounds, "bound propagation: interval, symbolic or optimised")
	f.IntVar(&o.Pieces, "pieces", o.Pieces, "input pieces a bound may split the box into (1: one-shot, like the peers' first pass)")
	f.BoolVar(&o.JSON, "json", false, "print one JSON object instead of the Markdown table")
	f.StringVar(&o.Out, "out", "", "also write the Markdown table to this file")
	f.StringVar(&o.Dir, "data", "", "benchmark folder (default: data/benchmarks of the shared folder)")
	return cmd
}

func runACASXu(ctx context.Context, stdout, stderr io.Writer, o *acasOptions, dirGiven bool) error {
	cfg, cleanup, err := o.config()
	if err != nil {
		return err
	}
	defer cleanup()
	if o.Out != "" {
		if st, err := os.Stat(filepath.Dir(o.Out)); err != nil || !st.IsDir() {
			return usageError{fmt.Errorf("--out %s: no such folder", o.Out)}
		}
	}
	dir, ok, err := acasDataDir("acasxu", o.Dir, dirGiven, stderr)
	if !ok {
		return err
	}
	o.Dir = dir
	insts, err := loadACAS(o.Dir, o.Props, o.Nets)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	run := &acasRun{Method: cfg.method.String(), Solver: o.Solver, Bounds: cfg.bounds.Method.String(), Pieces: o.Pieces,
		Timeout: o.Timeout.String(), SearchTime: o.Search.String(), CPUs: runtime.NumCPU(), LoadStart: report.Number(loadAverage())}
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
		return errChecksFailed
	}
	return nil
}

// acasConfig is what every instance is bounded and searched with.
type acasConfig struct {
	method  acasMethod
	bounds  bounds.Options
	cert    certjob.Job    // C is set per instance
	search  search.Options // C is set per instance
	timeout time.Duration
}

// config checks the flags and returns the configuration they make, and a
// function that removes the temporary files of the SDP solver.
func (o *acasOptions) config() (*acasConfig, func(), error) {
	method, err := parseACASMethod(o.Method)
	if err != nil {
		return nil, nil, err
	}
	if o.Timeout <= 0 || o.Search <= 0 {
		return nil, nil, usageError{fmt.Errorf("--timeout %v, --search-time %v: want both > 0", o.Timeout, o.Search)}
	}
	if o.Pieces < 1 {
		return nil, nil, usageError{fmt.Errorf("--pieces %d: want 1 or more", o.Pieces)}
	}
	bm, err := bounds.ParseMethod(o.Bounds)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("--bounds: %w", err)}
	}
	solve, cleanup, err := acasSolver(o.Solver)
	if err != nil {
		return nil, nil, err
	}
	cfg := &acasConfig{method: method, bounds: bounds.DefaultOptions(), cert: certjob.Default(),
		search: search.DefaultOptions(), timeout: o.Timeout}
	cfg.bounds.Method, cfg.bounds.Split = bm, o.Pieces
	c := &cfg.cert
	c.Method, c.Pairing, c.Bounds, c.Seed, c.Solve = certify.MethodSDP, spec.SameInput, bm, o.Seed, solve
	c.Refine.MaxPieces = o.Pieces
	cfg.search.Seed, cfg.search.TimeLimit = o.Seed, o.Search
	return cfg, cleanup, nil
}
