package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/internal/csdp"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/nnet"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/search"
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
	JSON        bool
	Out         string // Markdown file, written besides stdout
	Dir         string // the shared benchmarks folder
}

func newACASXuCmd() *cobra.Command {
	o := acasOptions{Props: []string{"3", "4"}, Method: acasInterval.String(), Timeout: 60 * time.Second,
		Search: 30 * time.Second, Seed: 1, Solver: "nnbound"}
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
difference), sdp (the certificate's SDP), best (both; the smaller bound).

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
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "time limit of one instance's bound (best falls back to interval)")
	f.DurationVar(&o.Search, "search-time", o.Search, "time limit of one instance's search for the largest difference")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the searches")
	f.StringVar(&o.Solver, "solver", o.Solver, "SDP solver of the certificates: nnbound or csdp (the check is the same)")
	f.BoolVar(&o.JSON, "json", false, "print one JSON object instead of the Markdown table")
	f.StringVar(&o.Out, "out", "", "also write the Markdown table to this file")
	f.StringVar(&o.Dir, "data", "", "benchmark folder (default: data/benchmarks of the shared folder)")
	return cmd
}

func runACASXu(ctx context.Context, stdout, stderr io.Writer, o *acasOptions, dirGiven bool) error {
	method, err := parseACASMethod(o.Method)
	if err != nil {
		return err
	}
	if o.Timeout <= 0 || o.Search <= 0 {
		return usageError{fmt.Errorf("--timeout %v, --search-time %v: want both > 0", o.Timeout, o.Search)}
	}
	solve, cleanup, err := acasSolver(o.Solver)
	if err != nil {
		return err
	}
	defer cleanup()
	if o.Out != "" {
		if st, err := os.Stat(filepath.Dir(o.Out)); err != nil || !st.IsDir() {
			return usageError{fmt.Errorf("--out %s: no such folder", o.Out)}
		}
	}
	if o.Dir == "" && !dirGiven {
		if root := shared.Root(); root != "" {
			o.Dir = filepath.Join(root, "data", "benchmarks")
		}
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "properties.json")); o.Dir == "" || err != nil {
		if dirGiven {
			return fmt.Errorf("--data %s: no properties.json there", o.Dir)
		}
		fmt.Fprintln(stderr, "bench acasxu: shared benchmark folder not found (set NNBOUND_SHARED or --data); nothing to do")
		return nil
	}
	insts, err := loadACAS(o.Dir, o.Props, o.Nets)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	run := &acasRun{Method: method.String(), Solver: o.Solver, Timeout: o.Timeout.String(), SearchTime: o.Search.String(),
		CPUs: runtime.NumCPU(), LoadStart: report.Number(loadAverage())}
	for n, inst := range insts {
		row, err := benchACAS(ctx, inst, method, solve, o)
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

// benchACAS bounds, searches and checks one instance.
func benchACAS(ctx context.Context, inst *acasInstance, method acasMethod, solve solveFunc, o *acasOptions) (*acasRow, error) {
	f, _, err := nnet.Read(inst.F, nnet.Options{Core: true})
	if err != nil {
		return nil, err
	}
	fp, _, err := nnet.Read(inst.FPrime, nnet.Options{Core: true})
	if err != nil {
		return nil, err
	}
	c := make([]float64, f.OutputSize())
	if inst.Target < 0 || inst.Target >= len(c) {
		return nil, fmt.Errorf("property %s: target output %d of a network with %d outputs", inst.Prop, inst.Target, len(c))
	}
	c[inst.Target] = 1
	in := bounds.Inputs{Box: bounds.Box{Lo: inst.Lo, Hi: inst.Hi}, Pairing: bounds.SameInput}
	row := newACASRow(inst)
	row.Load = report.Number(loadAverage())
	row.RSSReset = resetPeakRSS()

	bctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	iv, pb, err := intervalBound(f, fp, in, c)
	if err != nil {
		return nil, err
	}
	if method != acasSDP {
		row.Interval = iv
		row.Seconds += iv.Seconds
		row.take(iv.Bound, acasInterval.String())
	}
	row.Unstable1, row.Unstable2 = pb.Net1.Unstable(f), pb.Net2.Unstable(fp)
	for _, d := range pb.DiffPost {
		row.DiffMax = append(row.DiffMax, report.Number(magMax(d)))
	}
	found := 0.0
	if method != acasInterval {
		sd := sdpBound(bctx, f, fp, in.Box, c, o.Seed, solve)
		row.SDP = sd
		row.Seconds += sd.Seconds
		if sd.Status == certify.Certified.String() {
			row.take(float64(sd.Bound), acasSDP.String())
		}
		found = sd.found
	}
	if row.Method == "" {
		row.Status, row.Reason = row.SDP.Status, row.SDP.Reason
	}
	row.PeakRSS = report.Number(peakRSS())

	so := search.DefaultOptions()
	so.C, so.Seed, so.TimeLimit = c, o.Seed, o.Search
	sstart := time.Now()
	res, err := search.MaxError(ctx, f, fp, in, so)
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	row.SearchSeconds = time.Since(sstart).Seconds()
	if res != nil {
		found = max(found, res.Error)
	}
	row.Found = report.Number(found)
	row.check()
	return row, nil
}

// intervalBound returns the enclosure of f'_t - f_t by bound propagation
// (bounds.Pair with its default, symbolic method), and the pair bounds.
func intervalBound(f, fp *nn.Network, in bounds.Inputs, c []float64) (*acasIntervalRes, *bounds.PairBounds, error) {
	start := time.Now()
	pb, err := bounds.Pair(f, fp, in, bounds.DefaultOptions())
	if err != nil {
		return nil, nil, err
	}
	m, err := pb.Margin(c)
	if err != nil {
		return nil, nil, err
	}
	return &acasIntervalRes{Lo: m.Lo, Hi: m.Hi, Bound: m.Mag(), Seconds: time.Since(start).Seconds()}, pb, nil
}

// sdpBound certifies |f'_t - f_t| by the certificate's SDP (same input,
// C = e_t, the default QC set and refinement).
func sdpBound(ctx context.Context, f, fp *nn.Network, box bounds.Box, c []float64, seed uint64, solve solveFunc) *acasSDPRes {
	co := certify.DefaultOptions()
	co.Method, co.C, co.Pairing, co.Seed, co.Solve = certify.MethodSDP, c, bounds.SameInput, seed, solve
	cert, err := certify.Bound(ctx, f, fp, box, co)
	if err != nil {
		return &acasSDPRes{Status: "error", Reason: err.Error(), Bound: report.Number(math.NaN())}
	}
	s := &acasSDPRes{Status: cert.Status.String(), Reason: cert.Reason, Bound: report.Number(cert.Bound),
		Seconds: cert.Time.Seconds(), Size: cert.SDP.Size, Variables: cert.SDP.Variables, Solves: cert.SDP.Solves,
		Iterations: cert.SDP.Iterations, SolverSeconds: cert.SDP.Time.Seconds(), Pieces: len(cert.Pieces),
		found: cert.ObservedError}
	if !cert.Certified {
		s.Bound = report.Number(math.NaN())
	}
	return s
}

// magMax returns the largest magnitude over ivs (NaN for none).
func magMax(ivs []bounds.Interval) float64 {
	if len(ivs) == 0 {
		return math.NaN()
	}
	m := 0.0
	for _, iv := range ivs {
		m = max(m, iv.Mag())
	}
	return m
}

// solveFunc solves an SDP of the certificate (certify.Options.Solve).
type solveFunc = func(context.Context, *sdp.Problem, *sdp.Settings) (*sdp.Result, error)

// acasSolver returns the SDP solver named name (nil: nnbound's) and a
// function that removes its temporary files.
func acasSolver(name string) (solveFunc, func(), error) {
	switch name {
	case "nnbound":
		return nil, func() {}, nil
	case "csdp":
		if !csdp.Available() {
			return nil, nil, fmt.Errorf("--solver csdp: csdp is not installed")
		}
		dir, err := os.MkdirTemp("", "bench-acasxu-")
		if err != nil {
			return nil, nil, err
		}
		solve := func(ctx context.Context, p *sdp.Problem, _ *sdp.Settings) (*sdp.Result, error) {
			return csdp.Solve(ctx, p, dir)
		}
		return solve, func() { os.RemoveAll(dir) }, nil
	}
	return nil, nil, usageError{fmt.Errorf("--solver %q: want nnbound or csdp", name)}
}
