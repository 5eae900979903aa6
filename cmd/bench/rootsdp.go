package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/spec"
)

// rootOptions are the flags of "bench rootsdp".
type rootOptions struct {
	Net     string // VeriPrune network, e.g. 1_1
	Pruned  string // 5 or 10
	Output  int    // output K, or -1 for the 2-norm
	Plain   bool   // drop the basis: factors as dense vectors
	Bare    bool   // the solver's own defaults rather than certify's
	Verbose bool
	Profile string
	Dir     string
}

func newRootSDPCmd() *cobra.Command {
	o := rootOptions{Net: "1_1", Pruned: "5"}
	cmd := &cobra.Command{
		Use:   "rootsdp",
		Short: "Solve the root SDP of two different 6x50 ACAS Xu networks (a VeriPrune pair) and time it",
		Long: `Build the root SDP of "nnbound compare F G --pairing same" (certify.Problem,
the default QC set) for a VeriPrune pair — F an ACAS Xu network, G its
node-pruned and fine-tuned copy — over the box of the benchmark's
equivalence_eps0.05.vnnlib, for the difference of output --output (one of
the SDPs of --norm inf) or the 2-norm (--output -1), solve it with
nnbound's solver with the settings "nnbound compare" gives it
(certify.DefaultOptions().Solver: gap 1e-5, feasibility 1e-6, starting
dual matrix I) and print its size, status, objective, iterations, wall
and CPU time and peak resident memory. --sdp-defaults solves it with the
solver's own defaults instead (gap and feasibility 1e-8, CSDP's starting
point), as this benchmark did before. --plain drops the SDP's basis
(sdp.Basis), so that the solver works with the factors' dense vectors as
before the basis existed: the same problem, solved the slower way. The
objective is the solver's, unchecked; "nnbound compare" checks it.
The networks are read from data/benchmarks/veriprune of the shared folder
(NNBOUND_SHARED), or --data.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRootSDP(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Net, "net", o.Net, "ACAS Xu network i_j")
	f.StringVar(&o.Pruned, "pruned", o.Pruned, "pruned copy: 5 or 10 (per cent of the neurons)")
	f.IntVar(&o.Output, "output", 0, "output K (-1: the 2-norm of the difference)")
	f.BoolVar(&o.Plain, "plain", false, "solve without the basis (the factors as dense vectors)")
	f.BoolVar(&o.Bare, "sdp-defaults", false, "solve with sdp.DefaultSettings() instead of certify's solver settings")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "print the solver's iteration log on stderr")
	f.StringVar(&o.Profile, "cpuprofile", "", "write a CPU profile of the solve to this file")
	f.StringVar(&o.Dir, "data", "", "VeriPrune folder (default: data/benchmarks/veriprune of the shared folder)")
	return cmd
}

// veriPruneBox is the input box of equivalence_eps0.05.vnnlib.
var veriPruneBox = spec.Box{
	Lo: []float64{0.6, -0.5, -0.5, 0.45, -0.45},
	Hi: []float64{0.679857769, 0.5, 0.5, 0.5, -0.45},
}

func runRootSDP(ctx context.Context, stdout, stderr io.Writer, o *rootOptions) error {
	dirGiven := o.Dir != ""
	if !dirGiven {
		if root := shared.Root(); root != "" {
			o.Dir = filepath.Join(root, "data", "benchmarks", "veriprune")
		}
	}
	name := "ACASXU_run2a_" + o.Net + "_batch_2000"
	fPath := filepath.Join(o.Dir, "onnx", "nets", name+".onnx")
	gPath := filepath.Join(o.Dir, "onnx", "nets_pruned", name+"_pruned"+o.Pruned+".onnx")
	if _, err := os.Stat(gPath); o.Dir == "" || err != nil {
		if dirGiven || o.Dir != "" {
			return fmt.Errorf("no VeriPrune pair %s, pruned %s%% under %s", o.Net, o.Pruned, o.Dir)
		}
		fmt.Fprintln(stderr, "bench rootsdp: shared benchmark folder not found (set NNBOUND_SHARED or --data); nothing to do")
		return nil
	}
	f1, _, err := modelfile.Load(fPath, modelfile.Options{})
	if err != nil {
		return err
	}
	f2, _, err := modelfile.Load(gPath, modelfile.Options{})
	if err != nil {
		return err
	}
	q := spec.Quantity{Norm: spec.Norm2}
	if o.Output >= 0 {
		if o.Output >= f1.OutputSize() {
			return usageError{fmt.Errorf("--output %d: the networks have %d outputs", o.Output, f1.OutputSize())}
		}
		q.C = make([]float64, f1.OutputSize())
		q.C[o.Output] = 1
	}
	in := spec.Inputs{Box: veriPruneBox, Pairing: spec.SameInput}
	opts := certify.DefaultOptions()
	rp, err := certify.Problem(f1, f2, in, q, opts)
	if err != nil {
		return err
	}
	if o.Plain {
		rp.Bases = nil
	}
	set := opts.Solver
	if o.Bare {
		set = sdp.DefaultSettings()
	}
	if o.Verbose {
		set.Log = stderr
	}
	stop, err := startCPUProfile(o.Profile)
	if err != nil {
		return err
	}
	defer stop()
	resetPeakRSS()
	cpu0, t0 := cputime.Process(), time.Now()
	res, err := sdp.Solve(ctx, rp.Problem, &set)
	if err != nil {
		return err
	}
	wall, cpu := time.Since(t0), cputime.Process()-cpu0
	return writeRootSDP(stdout, o, rp, res, wall, cpu)
}

// writeRootSDP prints the measurement.
func writeRootSDP(w io.Writer, o *rootOptions, rp *certify.RootProblem, res *sdp.Result, wall, cpu time.Duration) error {
	order, factors, vecs := 0, 0, 0
	for _, b := range rp.Blocks {
		if !b.Diagonal {
			order = max(order, b.Size)
		}
	}
	for _, fs := range rp.Factors {
		factors += len(fs)
	}
	for _, b := range rp.Bases {
		vecs = max(vecs, len(b.Vecs))
	}
	quantity := "2-norm"
	if o.Output >= 0 {
		quantity = fmt.Sprintf("output %d", o.Output)
	}
	route := "basis"
	if o.Plain {
		route = "plain"
	}
	settings := "certify's settings"
	if o.Bare {
		settings = "sdp.DefaultSettings"
	}
	_, err := fmt.Fprintf(w, "pair        %s against its %s%%-pruned copy, %s, x2 = x1\n"+
		"sdp         LMI of order %d, %d variables, %d factors, basis of %d vectors (%s)\n"+
		"status      %v after %d iterations (%s)\n"+
		"objective   %.9g (dual %.9g)\n"+
		"time        %.2f s wall, %.2f s CPU\n"+
		"peak RSS    %.0f MiB\n",
		o.Net, o.Pruned, quantity, order, len(rp.C), factors, vecs, route,
		res.Status, res.Iterations, settings, res.PrimalObjective, res.DualObjective,
		wall.Seconds(), cpu.Seconds(), peakRSS())
	return err
}
