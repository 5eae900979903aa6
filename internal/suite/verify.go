package suite

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/internal/benchdata"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/nn/nnet"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
)

// VerifyOptions are the options of the verification suite (bench verify).
type VerifyOptions struct {
	Suite    string // veriprune or acasxu
	Eps      float64
	Timeout  time.Duration
	CPULimit time.Duration // process CPU time of one instance (0: none)
	// Decide are the options of verify.Decide.
	Decide   verify.Options
	Props    []string
	Nets     []string
	Out      string
	Dir      string
	DirGiven bool // Dir was given, not looked up
	Profile  string
}

// DefaultVerifyOptions returns the defaults of bench verify: the
// VeriPrune pairs at eps 0.05, 100 s an instance, verify.DefaultOptions.
func DefaultVerifyOptions() VerifyOptions {
	return VerifyOptions{Suite: "veriprune", Eps: 0.05, Timeout: 100 * time.Second, Decide: verify.DefaultOptions()}
}

// verifyInstance is one question of a suite.
type verifyInstance struct {
	Name   string
	F, G   string // model files
	Core   bool   // read NNet files as their normalised core network
	Box    spec.Box
	Tol    spec.Tolerance
	Peer   string  // the peer's verdict ("" if none)
	PeerS  float64 // and time, seconds
	Result *verify.Result
	CPU    float64 // process CPU seconds of the decision
	Check  string  // "ok" or what failed
}

// Verify decides the instances of o.Suite, checks every answer and prints
// the table.
func Verify(ctx context.Context, stdout, stderr io.Writer, o *VerifyOptions) error {
	if !(o.Eps > 0) {
		return UsageError{fmt.Errorf("--eps %v: want a positive number", o.Eps)}
	}
	if o.Suite != "veriprune" && o.Suite != "acasxu" {
		return UsageError{fmt.Errorf("--suite %q: want veriprune or acasxu", o.Suite)}
	}
	dir, ok, err := acasDataDir("verify", o.Dir, o.DirGiven, stderr)
	if !ok {
		return err
	}
	o.Dir = dir
	var insts []*verifyInstance
	switch o.Suite {
	case "veriprune":
		insts, err = veriPruneInstances(o.Dir, o.Eps, o.Nets)
	default:
		insts, err = acasVerifyInstances(o.Dir, o.Eps, o.Props, o.Nets)
	}
	if err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(o.Profile)
	if err != nil {
		return err
	}
	defer stopProfile()
	loadStart := loadAverage()
	failed := 0
	for n, inst := range insts {
		if err := inst.decide(ctx, o); err != nil {
			return err
		}
		r := inst.Result
		fmt.Fprintf(stderr, "[%d/%d] %s: %s %s %.1f s (cpu %.1f s), %d nodes, bound %s, found %.4g, check %s\n", n+1, len(insts), inst.Name,
			r.Status, r.Reason, r.Seconds, inst.CPU, r.Nodes, boundNumber(r.Bound), r.Worst.Measure, inst.Check)
		if inst.Check != "ok" {
			failed++
			fmt.Fprintf(stderr, "bench verify: CHECK FAILED: %s: %s\n", inst.Name, inst.Check)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	write := func(w io.Writer) error {
		return writeVerifyTable(w, o, insts, [2]float64{loadStart, loadAverage()})
	}
	if o.Out != "" {
		if err := atomicfile.Write(o.Out, write); err != nil {
			return err
		}
	}
	if err := write(stdout); err != nil {
		return err
	}
	if failed > 0 {
		return ErrChecksFailed
	}
	return nil
}

// veriPruneInstances returns the VeriPrune pairs (equivalence_eps0.05.vnnlib's
// box and outputs, with tolerance eps).
func veriPruneInstances(dir string, eps float64, nets []string) ([]*verifyInstance, error) {
	var out []*verifyInstance
	for i := 1; i <= 5; i++ {
		for j := 1; j <= 9; j++ {
			net := fmt.Sprintf("%d_%d", i, j)
			if len(nets) > 0 && !slices.Contains(nets, net) {
				continue
			}
			name := "ACASXU_run2a_" + net + "_batch_2000"
			for _, p := range []string{"5", "10"} {
				out = append(out, &verifyInstance{Name: net + " pruned" + p, Box: veriPruneBox,
					F:   filepath.Join(dir, "veriprune", "onnx", "nets", name+".onnx"),
					G:   filepath.Join(dir, "veriprune", "onnx", "nets_pruned", name+"_pruned"+p+".onnx"),
					Tol: spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{eps}}})
			}
		}
	}
	if len(out) == 0 {
		return nil, UsageError{fmt.Errorf("--nets %v: no VeriPrune net among them", nets)}
	}
	return out, nil
}

// acasVerifyInstances returns the peers' ACAS Xu float16 instances of the
// properties props (all the peers ran when empty), with NeuroDiff's
// verdict and time at tolerance eps.
func acasVerifyInstances(dir string, eps float64, props, nets []string) ([]*verifyInstance, error) {
	if len(props) == 0 {
		props = []string{"1", "3", "4", "5", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "26"}
	}
	acas, err := loadACAS(dir, props, nets)
	if err != nil {
		return nil, err
	}
	rows, err := benchdata.ReadTSV(filepath.Join(dir, "reference-results.tsv"))
	if err != nil {
		return nil, err
	}
	peer := map[string]map[string]string{}
	for _, r := range rows {
		if r["suite"] == "acasxu-f16" && r["tool"] == "NeuroDiff" && r["eps"] == fmt.Sprint(eps) {
			peer[r["prop"]+"/"+r["net"]] = r
		}
	}
	var out []*verifyInstance
	for _, a := range acas {
		inst := &verifyInstance{Name: "prop " + a.Prop + " net " + a.Net, F: a.F, G: a.FPrime, Core: true,
			Box: spec.Box{Lo: a.Lo, Hi: a.Hi},
			Tol: spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{eps}, Outputs: []int{a.Target}}, PeerS: -1}
		if r, ok := peer[a.Prop+"/"+a.Net]; ok {
			inst.Peer = r["verdict"]
			fmt.Sscan(r["time_s_timeout_counted"], &inst.PeerS)
		}
		out = append(out, inst)
	}
	return out, nil
}

// load reads a model file (NNet files as their core network when core).
func load(path string, core bool) (*nn.Network, error) {
	if core {
		f, _, err := nnet.Read(path, nnet.Options{Core: true})
		return f, err
	}
	f, _, err := modelfile.Load(path, modelfile.Options{})
	return f, err
}

// decide runs verify.Decide on the instance and checks its answer.
func (inst *verifyInstance) decide(ctx context.Context, o *VerifyOptions) error {
	f, err := load(inst.F, inst.Core)
	if err != nil {
		return err
	}
	g, err := load(inst.G, inst.Core)
	if err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if o.CPULimit > 0 {
		stop := cancelAfterCPU(cancel, cputime.Process()+o.CPULimit)
		defer stop()
	}
	opts := o.Decide
	cpu := cputime.Process()
	res, err := verify.Decide(dctx, f, g, spec.Inputs{Box: inst.Box}, inst.Tol, &opts)
	inst.CPU = (cputime.Process() - cpu).Seconds()
	if err != nil {
		return fmt.Errorf("%s: %w", inst.Name, err)
	}
	inst.Result = res
	inst.Check = checkVerdict(f, g, inst.Box, inst.Tol, res)
	return nil
}

// cancelAfterCPU calls cancel once the process's CPU time reaches limit
// (checked every 50 ms) and returns the function that stops watching.
func cancelAfterCPU(cancel context.CancelFunc, limit time.Duration) func() {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if cputime.Process() >= limit {
					cancel()
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

// checkVerdict checks the worst point of any verdict (for Violated, the
// counterexample) again with verify.CheckPoint against the tolerance,
// every output with its own epsilon, and the bound against it.
func checkVerdict(f, g *nn.Network, box spec.Box, tol spec.Tolerance, res *verify.Result) string {
	p := res.Worst
	if p == nil {
		return "no worst point"
	}
	if !box.Contains(p.X) {
		return "worst point outside the box"
	}
	pt, s, err := verify.CheckPoint(f, g, p.X, p.X, tol)
	if err != nil {
		return "evaluation failed"
	}
	switch {
	case res.Status == verify.Violated && s != verify.Violated:
		return fmt.Sprintf("counterexample's difference %g (exactly within [%g, %g]) is not certainly above eps", pt.Measure, pt.MeasureLo, pt.MeasureHi)
	case res.Status == verify.Holds && s == verify.Violated:
		return fmt.Sprintf("holds, but a difference of at least %g is attained", pt.MeasureLo)
	case pt.MeasureLo > res.Bound:
		return fmt.Sprintf("difference of at least %g attained above the bound %g", pt.MeasureLo, res.Bound)
	}
	return "ok"
}

// number formats v to 4 significant figures.
func number(v float64) string { return num4(report.Number(v)) }

// boundNumber formats a certified bound to 6 significant figures, so that
// a bound just below eps (0.0099996 against 0.01) does not print as eps.
func boundNumber(v float64) string { return numSig(report.Number(v), 6) }
