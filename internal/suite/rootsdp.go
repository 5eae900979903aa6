package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/spec"
)

// RootSDPOptions are the options of the root SDP suite (bench rootsdp).
type RootSDPOptions struct {
	Net     string // VeriPrune network, e.g. 1_1
	Pruned  string // 5 or 10
	Output  int    // output K, or -1 for the 2-norm
	Plain   bool   // drop the basis: factors as dense vectors
	Bare    bool   // the solver's own defaults rather than certify's
	Verbose bool
	Profile string
	Dir     string
}

// DefaultRootSDPOptions returns the defaults of bench rootsdp: net 1_1
// against its 5 %-pruned copy, output 0, certify's solver settings.
func DefaultRootSDPOptions() RootSDPOptions { return RootSDPOptions{Net: "1_1", Pruned: "5"} }

// veriPruneBox is the input box of equivalence_eps0.05.vnnlib.
var veriPruneBox = spec.Box{
	Lo: []float64{0.6, -0.5, -0.5, 0.45, -0.45},
	Hi: []float64{0.679857769, 0.5, 0.5, 0.5, -0.45},
}

// RootSDP builds and solves the root SDP of a VeriPrune pair and prints
// its size, status and times.
func RootSDP(ctx context.Context, stdout, stderr io.Writer, o *RootSDPOptions) error {
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
			return UsageError{fmt.Errorf("--output %d: the networks have %d outputs", o.Output, f1.OutputSize())}
		}
		q.C = spec.OutputC(f1.OutputSize(), o.Output)
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
func writeRootSDP(w io.Writer, o *RootSDPOptions, rp *certify.RootProblem, res *sdp.Result, wall, cpu time.Duration) error {
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
