package suite

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/benchdata"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/nnet"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// WideOptions are the options of the HAR and MNIST suite (bench wide).
type WideOptions struct {
	Suite string // har, mnist-global or mnist-3pix
	Limit int    // only the first Limit instances (0: all)
	// Propagate are the options of certify.Propagate: Bounds, Split and
	// Optimise matter.
	Propagate certify.Options
	Profile   string // CPU profile file
	Dir       string
	// Search, when positive, also searches each box for the largest
	// difference with this many evaluations (search.Options.MaxEvals).
	Search int
}

// DefaultWideOptions returns the defaults of bench wide: HAR, one-shot
// symbolic bounds (with the optimised method's default settings).
func DefaultWideOptions() WideOptions {
	o := WideOptions{Suite: "har", Propagate: certify.DefaultOptions()}
	o.Propagate.Bounds, o.Propagate.Split = bounds.MethodSymbolic, 0
	o.Propagate.Optimise = bounds.DefaultOptimiseSettings()
	return o
}

// wideRow is the result of one instance.
type wideRow struct {
	Net    string        `json:"net"`
	Prop   int           `json:"prop"`
	Target int           `json:"target"`
	Lo     float64       `json:"lo"` // Lo, Hi enclose f'_t - f_t over the box
	Hi     float64       `json:"hi"`
	Bound  report.Number `json:"bound"`
	Proved bool          `json:"proved"`
	Wall   float64       `json:"seconds"`
	CPU    float64       `json:"cpu_seconds"`
	// NeuroDiff is its first-pass bound, NDTime its time to prove.
	NeuroDiff report.Number `json:"neurodiff_firstpass"`
	NDTime    report.Number `json:"neurodiff_seconds"`
	Ratio     report.Number `json:"ratio_neurodiff"`
	// Found is the data's largest attained |f'_t - f_t|, Searched ours
	// (--search, re-evaluated here; NaN when not run); Violated says one
	// of them exceeds Bound (the bound would be unsound).
	Found    report.Number `json:"found_tsv"`
	Searched report.Number `json:"found_search"`
	Violated bool          `json:"violated"`
}

// Wide bounds the instances of o.Suite, checks every bound against the
// differences attained and prints the table.
func Wide(ctx context.Context, stdout, stderr io.Writer, o *WideOptions) error {
	if _, ok := benchdata.WideSuites[o.Suite]; !ok {
		return UsageError{fmt.Errorf("--suite %q: want har, mnist-global or mnist-3pix", o.Suite)}
	}
	dirGiven := o.Dir != ""
	if !dirGiven {
		if root := shared.Root(); root != "" {
			o.Dir = filepath.Join(root, "data", "benchmarks")
		}
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "reference-results.tsv")); o.Dir == "" || err != nil {
		if dirGiven {
			return fmt.Errorf("--data %s: no reference-results.tsv there", o.Dir)
		}
		fmt.Fprintln(stderr, "bench wide: shared benchmark folder not found (set NNBOUND_SHARED or --data); nothing to do")
		return nil
	}
	nets, err := benchdata.WideNets(o.Dir, o.Suite)
	if err != nil {
		return err
	}
	var runs []*wideNet
	var absent []string
	for _, name := range nets {
		wn, err := loadWideNet(o.Dir, o.Suite, name, o.Limit)
		if err != nil {
			return err
		}
		if wn == nil {
			absent = append(absent, name)
			fmt.Fprintf(stderr, "bench wide: %s: network or its 16-bit copy absent from %s; its instances are not run\n", name, o.Dir)
			continue
		}
		runs = append(runs, wn)
	}
	stop, err := startCPUProfile(o.Profile)
	if err != nil {
		return err
	}
	defer stop()
	resetPeakRSS()
	var rows []*wideRow
	for _, wn := range runs {
		for n, in := range wn.insts {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			row, err := wideBound(wn.f, wn.fp, in, o.Propagate)
			if err == nil {
				err = wideSearch(ctx, wn.f, wn.fp, in, o.Search, row)
			}
			if err != nil {
				return fmt.Errorf("%s instance %d: %w", in.Net, in.Prop, err)
			}
			rows = append(rows, row)
			if row.Violated {
				fmt.Fprintf(stderr, "bench wide: SOUNDNESS VIOLATION: %s instance %d: bound %g below the attained %g (data) or %g (search)\n",
					in.Net, in.Prop, float64(row.Bound), in.Found, float64(row.Searched))
			}
			fmt.Fprintf(stderr, "[%s %d/%d] %d: bound %.4g (NeuroDiff %.4g) %s in %.3f s\n",
				in.Net, n+1, len(wn.insts), in.Prop, float64(row.Bound), float64(row.NeuroDiff), provedWord(row.Proved), row.Wall)
		}
	}
	if err := writeWide(stdout, o, rows, absent, peakRSS()); err != nil {
		return err
	}
	if slices.ContainsFunc(rows, func(r *wideRow) bool { return r.Violated }) {
		return ErrChecksFailed
	}
	return nil
}

// wideNet is one network of a suite with its instances.
type wideNet struct {
	f, fp *nn.Network
	insts []*benchdata.WideInstance
}

// loadWideNet reads the network name of suite, its 16-bit copy and its
// first limit instances from the folder dir; nil when either network file
// is absent.
func loadWideNet(dir, suite, name string, limit int) (*wideNet, error) {
	fPath, fpPath := benchdata.WideFiles(dir, suite, name)
	for _, p := range []string{fPath, fpPath} {
		if _, err := os.Stat(p); err != nil {
			return nil, nil
		}
	}
	f, _, err := nnet.Read(fPath, nnet.Options{Core: true})
	if err != nil {
		return nil, err
	}
	fp, _, err := nnet.Read(fpPath, nnet.Options{Core: true})
	if err != nil {
		return nil, err
	}
	insts, err := benchdata.LoadWide(dir, suite, name, limit)
	if err != nil {
		return nil, err
	}
	return &wideNet{f: f, fp: fp, insts: insts}, nil
}

// wideBound bounds f'_t - f_t over the box of in with opts and times it,
// by certify.Propagate: the first pass of nnbound compare.
func wideBound(f, fp *nn.Network, in *benchdata.WideInstance, opts certify.Options) (*wideRow, error) {
	c := make([]float64, f.OutputSize())
	if in.Target < 0 || in.Target >= len(c) {
		return nil, fmt.Errorf("target output %d of a network with %d outputs", in.Target, len(c))
	}
	c[in.Target] = 1
	box := spec.Inputs{Box: spec.Box{Lo: in.Lo, Hi: in.Hi}, Pairing: spec.SameInput}
	start, cpu0 := time.Now(), cputime.Process()
	e, err := certify.Propagate(f, fp, box, spec.Quantity{C: c}, opts)
	if err != nil {
		return nil, err
	}
	m := *e.Margin
	row := &wideRow{Net: in.Net, Prop: in.Prop, Target: in.Target, Lo: m.Lo, Hi: m.Hi, Bound: report.Number(e.Bound),
		Wall: time.Since(start).Seconds(), CPU: (cputime.Process() - cpu0).Seconds(),
		NeuroDiff: report.Number(in.NeuroDiff), NDTime: report.Number(in.NeuroDiffTime)}
	// Proved: -eps < lo and hi < eps, strictly, as the peers check.
	// |f'_t - f_t| <= Bound < eps proves it too.
	row.Proved = -in.Eps < m.Lo && m.Hi < in.Eps || e.Bound < in.Eps
	row.Ratio = report.Number(e.Bound / in.NeuroDiff)
	row.Found, row.Violated = report.Number(in.Found), in.Found > e.Bound
	row.Searched = report.Number(math.NaN())
	return row, nil
}

// wideSearch searches the instance's box for the largest |f'_t - f_t|
// with evals evaluations (none when evals is 0), records it in row, and
// marks the row violated when it exceeds the bound. The search evaluates
// both networks at the point it returns, as nn.Network.Eval does.
func wideSearch(ctx context.Context, f, fp *nn.Network, in *benchdata.WideInstance, evals int, row *wideRow) error {
	if evals <= 0 {
		return nil
	}
	c := make([]float64, f.OutputSize())
	c[in.Target] = 1
	opts := search.DefaultOptions()
	opts.MaxEvals = evals
	box := spec.Inputs{Box: spec.Box{Lo: in.Lo, Hi: in.Hi}, Pairing: spec.SameInput}
	r, err := search.MaxError(ctx, f, fp, box, spec.Quantity{C: c}, opts)
	if err != nil {
		return err
	}
	row.Searched = report.Number(r.Error)
	row.Violated = row.Violated || r.Error > float64(row.Bound)
	return nil
}

func provedWord(ok bool) string {
	if ok {
		return "proved"
	}
	return "unknown"
}

// writeWide prints the Markdown table and summary of a run.
// absent lists the suite's networks of reference-results.tsv that were not
// run.
func writeWide(w io.Writer, o *WideOptions, rows []*wideRow, absent []string, rss float64) error {
	fmt.Fprintf(w, "## bench wide --suite %s --bounds %s (%d CPUs, GOMAXPROCS %d)\n\n",
		o.Suite, o.Propagate.Bounds, runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintln(w, "| net | i | t | bound | lo | hi | proved | wall s | CPU s | NeuroDiff first pass | ratio | NeuroDiff s | attained (data) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	var wall, cpu, ratio, nd, found, searched []float64
	proved, ndProved := 0, 0
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d | %d | %s | %.4g | %.4g | %s | %.3f | %.3f | %s | %s | %s | %s |\n", r.Net, r.Prop, r.Target, num4(r.Bound),
			r.Lo, r.Hi, provedWord(r.Proved), r.Wall, r.CPU, num4(r.NeuroDiff), numSig(r.Ratio, 3), num4(r.NDTime), num4(r.Found))
		found = append(found, float64(r.Found)/float64(r.NeuroDiff))
		searched = append(searched, float64(r.Searched)/float64(r.NeuroDiff))
		wall, cpu, ratio, nd = append(wall, r.Wall), append(cpu, r.CPU), append(ratio, float64(r.Ratio)), append(nd, float64(r.NDTime))
		if r.Proved {
			proved++
		}
		if !math.IsNaN(float64(r.NDTime)) {
			ndProved++
		}
	}
	sum := func(v []float64) float64 {
		t := 0.0
		for _, x := range v {
			if !math.IsNaN(x) {
				t += x
			}
		}
		return t
	}
	fmt.Fprintf(w, "\n| | nnbound (%s, one shot) | NeuroDiff (12 threads, with splitting) |\n|---|---|---|\n", o.Propagate.Bounds)
	notRun := "every network of the suite"
	if len(absent) > 0 {
		notRun = "networks absent, not run: " + strings.Join(absent, ", ")
	}
	fmt.Fprintf(w, "| instances run | %d (%s) | |\n", len(rows), notRun)
	fmt.Fprintf(w, "| proved | %d/%d | %d/%d |\n", proved, len(rows), ndProved, len(rows))
	fmt.Fprintf(w, "| median time per instance | %.3f s wall, %.3f s CPU | %.3f s |\n", median(wall), median(cpu), median(slices.DeleteFunc(nd, math.IsNaN)))
	fmt.Fprintf(w, "| total time | %.2f s wall, %.2f s CPU | %.2f s |\n", sum(wall), sum(cpu), sum(nd))
	fmt.Fprintf(w, "| median bound / NeuroDiff first pass | %.3g | 1 |\n", median(ratio))
	fmt.Fprintf(w, "| median attained (data) / NeuroDiff first pass, a floor for any sound bound | %.3g | |\n", median(slices.DeleteFunc(found, math.IsNaN)))
	if searched = slices.DeleteFunc(searched, math.IsNaN); len(searched) > 0 {
		fmt.Fprintf(w, "| median found by our search (%d evaluations) / NeuroDiff first pass, a floor too | %.3g | |\n", o.Search, median(searched))
	}
	_, err := fmt.Fprintf(w, "| peak resident memory | %.0f MiB | |\n", rss)
	return err
}
