package suite

import (
	"context"
	"fmt"
	"io"
	"math"
	"regexp"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/nnet"
	"github.com/nnbound/nnbound/spec"
)

// defaultsCase is one instance of "bench defaults": the same input to f
// and f', the target output, the box.
type defaultsCase struct {
	suite, name string
	f, fp       *nn.Network
	target      int
	box         spec.Box
}

// Defaults writes the table of "bench defaults": compare's default path
// (certjob.Default, the same input, the target output) on ACAS Xu
// properties 3 and 4 and the first limit HAR and MNIST 3x100 instances of
// the benchmark folder dir (the shared folder's when dir is "" and not
// given), with the one-shot symbolic bound of "bench wide" beside HAR and
// MNIST and compare's default bound at d6b939f (d6b939fBounds) beside ACAS
// Xu; only the instances whose "suite instance" name only matches, when
// only is not nil; with profile not "", a CPU profile of the runs is
// written to that file.
func Defaults(ctx context.Context, w, stderr io.Writer, dir string, dirGiven bool, limit int, only *regexp.Regexp, profile string) error {
	dir, ok, err := acasDataDir("defaults", dir, dirGiven, stderr)
	if err != nil || !ok {
		return err
	}
	stop, err := startCPUProfile(profile)
	if err != nil {
		return err
	}
	defer stop()
	cases, err := defaultsCases(dir, limit)
	if err != nil {
		return err
	}
	ref, err := d6b939fBounds()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "## bench defaults (load average %.3g at the start)\n\n", loadAverage())
	fmt.Fprintln(w, "| suite | instance | bound | found | ratio | one-shot symbolic or d6b939f | stopped | pieces | CPU s | wall s |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	cpus, walls := map[string][]float64{}, map[string][]float64{}
	ratios := map[string][]float64{}
	noLooser, withRef := map[string]int{}, map[string]int{} // bounds at most d6b939f's, of those it has
	var order []string
	for _, k := range cases {
		if ctx != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if only != nil && !only.MatchString(k.suite+" "+k.name) {
			continue
		}
		job := certjob.Default()
		job.Pairing, job.C = spec.SameInput, spec.OutputC(k.f.OutputSize(), k.target)
		start, cpu := time.Now(), cputime.Process()
		c, err := job.Bound(ctx, k.f, k.fp, k.box)
		if err != nil {
			return fmt.Errorf("%s %s: %w", k.suite, k.name, err)
		}
		cs, wall := (cputime.Process() - cpu).Seconds(), time.Since(start).Seconds()
		oneShot := "-"
		if r, ok := ref[k.name]; ok && k.suite == "acasxu" {
			oneShot = fmt.Sprintf("%.5g", r)
			withRef[k.suite]++
			if c.Bound <= r {
				noLooser[k.suite]++
			}
		}
		if k.suite != "acasxu" {
			co := certify.DefaultOptions()
			co.Bounds, co.Split = bounds.MethodSymbolic, 0
			e, err := certify.Propagate(k.f, k.fp, job.Inputs(k.box), job.Quantity(), co)
			if err != nil {
				return fmt.Errorf("%s %s: %w", k.suite, k.name, err)
			}
			oneShot = fmt.Sprintf("%.5g", e.Bound)
		}
		if !c.Certified() || c.ObservedError > c.Bound {
			return fmt.Errorf("%s %s: %v, bound %g, found %g: %w", k.suite, k.name, c.Status, c.Bound, c.ObservedError, ErrChecksFailed)
		}
		pieces := max(1, len(c.Pieces))
		fmt.Fprintf(w, "| %s | %s | %.5g | %.5g | %.3f | %s | %v | %d | %.2f | %.2f |\n",
			k.suite, k.name, c.Bound, c.ObservedError, c.Ratio(), oneShot, c.Stopped, pieces, cs, wall)
		if _, ok := cpus[k.suite]; !ok {
			order = append(order, k.suite)
		}
		cpus[k.suite] = append(cpus[k.suite], cs)
		walls[k.suite] = append(walls[k.suite], wall)
		ratios[k.suite] = append(ratios[k.suite], c.Ratio())
	}
	fmt.Fprintf(w, "\n(load average %.3g at the end)\n\n", loadAverage())
	fmt.Fprintln(w, "| suite | instances | median bound / found | CPU s: median (max) | wall s: median (max) | bound at most d6b939f's |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, s := range order {
		atMost := "-"
		if s == "acasxu" {
			atMost = fmt.Sprintf("%d of %d", noLooser[s], withRef[s])
		}
		fmt.Fprintf(w, "| %s | %d | %.3f | %.2f (%.2f) | %.2f (%.2f) | %s |\n", s, len(cpus[s]), median(ratios[s]),
			median(cpus[s]), largest(cpus[s]), median(walls[s]), largest(walls[s]), atMost)
	}
	return nil
}

// largest returns the largest of v (-Inf for none).
func largest(v []float64) float64 {
	hi := math.Inf(-1)
	for _, x := range v {
		hi = max(hi, x)
	}
	return hi
}

// defaultsCases returns the instances of "bench defaults" from dir.
func defaultsCases(dir string, limit int) ([]defaultsCase, error) {
	read := func(path string) (*nn.Network, error) {
		f, _, err := nnet.Read(path, nnet.Options{Core: true})
		return f, err
	}
	var out []defaultsCase
	acas, err := loadACAS(dir, []string{"3", "4"}, nil)
	if err != nil {
		return nil, err
	}
	for _, in := range acas {
		f, err := read(in.F)
		if err != nil {
			return nil, err
		}
		fp, err := read(in.FPrime)
		if err != nil {
			return nil, err
		}
		out = append(out, defaultsCase{"acasxu", in.Prop + "/" + in.Net, f, fp, in.Target, spec.Box{Lo: in.Lo, Hi: in.Hi}})
	}
	for _, suite := range []string{"har", "mnist-global"} {
		name := "HAR"
		if suite != "har" {
			name = "mnist_relu_3_100"
		}
		wn, err := loadWideNet(dir, suite, name, limit)
		if err != nil {
			return nil, err
		}
		if wn == nil {
			continue
		}
		for _, in := range wn.insts {
			out = append(out, defaultsCase{suite, fmt.Sprint(in.Prop), wn.f, wn.fp, in.Target, spec.Box{Lo: in.Lo, Hi: in.Hi}})
		}
	}
	return out, nil
}
