package suite

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/internal/csdp"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdpa"
)

// CertifyOptions are the options of the certificate suite (bench
// certify).
type CertifyOptions struct {
	Experiments string // comma-separated
	Runs        int    // instances per row
	Layers      string // depths l, comma-separated
	Solver      string // SDP solver of the certificates: nnbound or csdp
	PaperSolver string // of the paper set in the default experiment ("": Solver)
	Seed        uint64 // first seed of the instances
	ACAS        []string
	ScaleNets   []string
	SDPADir     string // where speed writes its SDPs, if not empty
}

// DefaultCertifyOptions returns the defaults of bench certify.
func DefaultCertifyOptions() CertifyOptions {
	return CertifyOptions{Experiments: "speed,default,tightness", Runs: 10, Layers: "1,2,3,4", Solver: "nnbound", Seed: 1,
		ACAS:      []string{"3/1_1", "3/3_2", "4/1_2", "3/2_1", "4/2_2", "3/2_5", "4/3_3", "3/5_7"},
		ScaleNets: []string{"1_1"}}
}

// Certify runs the experiments of o and prints their tables.
func Certify(ctx context.Context, stdout, stderr io.Writer, f *CertifyOptions) error {
	var layers []int
	for _, s := range strings.Split(f.Layers, ",") {
		l, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || l < 1 || l > 8 {
			return UsageError{fmt.Errorf("--layers %q: want depths 1..8", f.Layers)}
		}
		layers = append(layers, l)
	}
	if f.Runs < 1 {
		return UsageError{fmt.Errorf("--runs %d: want 1 or more", f.Runs)}
	}
	b := &certBench{out: stdout, log: stderr, runs: f.Runs, seed: f.Seed, sdpaDir: f.SDPADir}
	var done func()
	var err error
	if b.solve, done, err = acasSolver(f.Solver); err != nil {
		return err
	}
	defer done()
	b.paperSolver = cmp.Or(f.PaperSolver, f.Solver)
	switch {
	case b.paperSolver != "nnbound" && b.paperSolver != "csdp":
		return UsageError{fmt.Errorf("--paper-solver %q: want nnbound or csdp", b.paperSolver)}
	case b.paperSolver == "csdp" && !csdp.Available():
		return fmt.Errorf("--paper-solver csdp: csdp is not installed")
	}
	if b.paperSolve, done, err = acasSolver(b.paperSolver); err != nil {
		return err
	}
	defer done()
	fmt.Fprintf(b.out, "Solver of the certificates: %s. Instances: those of nnbound paper --seed %d, runs 0..%d.\n\n", f.Solver, f.Seed, f.Runs-1)
	for _, e := range strings.Split(f.Experiments, ",") {
		var err error
		switch strings.TrimSpace(e) {
		case "speed":
			err = b.speed(ctx, layers)
		case "default":
			err = b.defaultVsPaper(ctx, layers)
		case "tightness":
			err = b.tightness(ctx)
		case "families":
			err = b.families(ctx, layers, f.ACAS)
		case "bounds":
			err = b.boundsChoices(ctx, layers)
		case "infnorm":
			err = b.infNorm(ctx, layers, f.ACAS)
		case "scale":
			err = b.scale(ctx, f.ScaleNets)
		default:
			return UsageError{fmt.Errorf("--experiments: unknown experiment %q", e)}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// certBench holds the settings of a run.
type certBench struct {
	out, log io.Writer
	sdpaDir  string // where speed writes its SDPs, if not empty
	runs     int
	seed     uint64
	solve    solveFunc
	// paperSolve solves the paper set's SDPs in the default experiment,
	// and paperSolver names it.
	paperSolve  solveFunc
	paperSolver string
}

var unitBox = experiment.PaperBox()

// instance returns run r at depth l of Table 1 (table 1: f against
// itself, independent inputs) or Table 2 (f against its FB = 2 copy,
// quantised input) as nnbound paper builds it with seed b.seed (network
// seed experiment.NetSeed(b.seed, l, r)), under the default options with
// no time budget.
func (b *certBench) instance(table, l, r int) (f1, f2 *nn.Network, o certjob.Job, err error) {
	s := experiment.Setup{Exp: experiment.Table1, Seed: b.seed, Opts: certjob.Default()}
	s.Opts.Refine.TimeBudget = 0 // deterministic
	if table == 2 {
		s.Exp = experiment.Table2
	}
	return s.Instance(experiment.Task{Layers: l, Run: r})
}

// speed times nnbound's solver and csdp on the authors' SDP.
func (b *certBench) speed(ctx context.Context, layers []int) error {
	fmt.Fprintln(b.out, "### Speed: the authors' SDP (QC set paper, unit weights), Table 1 instance")
	fmt.Fprintln(b.out)
	fmt.Fprintln(b.out, "| l | LMI order | variables | nnbound status | nnbound s | csdp s | nnbound/csdp | objective rel. diff |")
	fmt.Fprintln(b.out, "|---|---|---|---|---|---|---|---|")
	for _, l := range layers {
		f1, f2, o, err := b.instance(1, l, 0)
		if err != nil {
			return err
		}
		o.QC, o.Weights = certify.QCPaper, certify.WeightsUnit
		root, err := o.Problem(f1, f2, unitBox)
		if err != nil {
			return err
		}
		p := root.Problem
		if b.sdpaDir != "" {
			name := filepath.Join(b.sdpaDir, fmt.Sprintf("table1-l%d-seed%d-paper.dat-s", l, experiment.NetSeed(b.seed, l, 0)))
			if err := atomicfile.Write(name, func(w io.Writer) error { return sdpa.Write(w, p) }); err != nil {
				return err
			}
		}
		fmt.Fprintf(b.log, "speed l=%d: nnbound...\n", l)
		ours, err := sdp.Solve(ctx, p, nil)
		if err != nil {
			return err
		}
		ref := &sdp.Result{Status: sdp.Unsolved, Time: 0, PrimalObjective: math.NaN()}
		if csdp.Available() {
			fmt.Fprintf(b.log, "speed l=%d: csdp...\n", l)
			dir, err := os.MkdirTemp("", "bench-certify-")
			if err != nil {
				return err
			}
			ref, err = csdp.Solve(ctx, p, dir)
			os.RemoveAll(dir)
			if err != nil {
				return err
			}
		}
		rel := math.Abs(ours.PrimalObjective-ref.PrimalObjective) / max(1, math.Abs(ref.PrimalObjective))
		fmt.Fprintf(b.out, "| %d | %d | %d | %v | %.3g | %.3g | %.3g | %.2g |\n", l, p.Blocks[0].Size, p.NumVars(),
			ours.Status, ours.Time.Seconds(), ref.Time.Seconds(), ours.Time.Seconds()/ref.Time.Seconds(), rel)
	}
	fmt.Fprintln(b.out)
	return nil
}

// bound certifies one instance and returns the certificate.
func (b *certBench) bound(ctx context.Context, f1, f2 *nn.Network, o certjob.Job) (*certify.Certificate, error) {
	o.Solve = b.solve
	return o.Bound(ctx, f1, f2, unitBox)
}

// paperBound certifies one instance with the authors' QC set, the
// reference of the default experiment, solved by --paper-solver: nnbound's
// solver (which solves the authors' SDPs at l = 1..4, faster than csdp) or
// csdp, the reference solver of their SDP.
func (b *certBench) paperBound(ctx context.Context, f1, f2 *nn.Network, o certjob.Job) (*certify.Certificate, error) {
	o.Solve = b.paperSolve
	return o.Bound(ctx, f1, f2, unitBox)
}

// defaultVsPaper compares the default QC set with the authors'.
func (b *certBench) defaultVsPaper(ctx context.Context, layers []int) error {
	fmt.Fprintf(b.out, "### Default QC set against the paper's (worst-case weights; paper set solved by %s)\n", b.paperSolver)
	fmt.Fprintln(b.out)
	fmt.Fprintln(b.out, "| table | l | runs | default s (mean) | default s (max) | default CPU s (mean) | (max) | paper s (mean) | default/paper bound (median) | (max) | certified default/paper |")
	fmt.Fprintln(b.out, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, table := range []int{1, 2} {
		for _, l := range layers {
			var td, tp, tdMax, cpu, cpuMax time.Duration
			var ratios []float64
			okD, okP := 0, 0
			for i := range b.runs {
				f1, f2, o, err := b.instance(table, l, i)
				if err != nil {
					return err
				}
				fmt.Fprintf(b.log, "default table %d l=%d run %d\n", table, l, i)
				c0 := cputime.Process()
				cd, err := b.bound(ctx, f1, f2, o)
				if err != nil {
					return err
				}
				dc := cputime.Process() - c0
				cpu, cpuMax = cpu+dc, max(cpuMax, dc)
				o.QC = certify.QCPaper
				cp, err := b.paperBound(ctx, f1, f2, o)
				if err != nil {
					return err
				}
				td, tp, tdMax = td+cd.Time, tp+cp.Time, max(tdMax, cd.Time)
				if cd.Certified() {
					okD++
				}
				if cp.Certified() {
					okP++
				}
				if cd.Certified() && cp.Certified() {
					ratios = append(ratios, cd.Bound/cp.Bound)
				}
			}
			n := time.Duration(b.runs)
			fmt.Fprintf(b.out, "| %d | %d | %d | %.3g | %.3g | %.3g | %.3g | %.3g | %.4g | %.4g | %d/%d |\n", table, l, b.runs,
				(td / n).Seconds(), tdMax.Seconds(), (cpu / n).Seconds(), cpuMax.Seconds(), (tp / n).Seconds(),
				median(ratios), maxOf(ratios), okD, okP)
		}
	}
	fmt.Fprintln(b.out)
	return nil
}

// tightness measures bound / exact largest error on Table 2 instances.
func (b *certBench) tightness(ctx context.Context) error {
	fmt.Fprintln(b.out, "### Tightness on Table 2 instances (FB = 2 copy, quantised input, default QC set)")
	fmt.Fprintln(b.out)
	fmt.Fprintln(b.out, "| l | runs | certified | exact errors | bound/error (median) | (90th pct) | (max) | root bound/error (median) | s (mean) | SDPs (mean) |")
	fmt.Fprintln(b.out, "|---|---|---|---|---|---|---|---|---|---|")
	for _, l := range []int{2, 3} {
		var ratios, roots []float64
		var total time.Duration
		ok, exact, solves := 0, 0, 0
		for i := range b.runs {
			f1, f2, o, err := b.instance(2, l, i)
			if err != nil {
				return err
			}
			fmt.Fprintf(b.log, "tightness l=%d run %d\n", l, i)
			c, err := b.bound(ctx, f1, f2, o)
			if err != nil {
				return err
			}
			total += c.Time
			solves += c.SDP.Solves
			if c.ObservedExact {
				exact++
			}
			if c.Certified() {
				ok++
				ratios = append(ratios, c.Ratio())
				roots = append(roots, c.RootBound/c.ObservedError)
			}
		}
		slices.Sort(ratios)
		p90 := math.NaN()
		if len(ratios) > 0 {
			p90 = ratios[min(len(ratios)-1, len(ratios)*9/10)]
		}
		fmt.Fprintf(b.out, "| %d | %d | %d | %d | %.4g | %.4g | %.4g | %.4g | %.3g | %.3g |\n", l, b.runs, ok, exact,
			median(ratios), p90, maxOf(ratios), median(roots), total.Seconds()/float64(b.runs), float64(solves)/float64(b.runs))
	}
	fmt.Fprintln(b.out)
	return nil
}

func maxOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return slices.Max(v)
}
