package suite

import (
	"context"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/benchdata"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/internal/csdp"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// bench bounds, searches and checks one instance.
func (cfg *acasConfig) bench(ctx context.Context, inst *benchdata.ACASInstance) (*acasRow, error) {
	f, fp, err := inst.Networks()
	if err != nil {
		return nil, err
	}
	c := make([]float64, f.OutputSize())
	if inst.Target < 0 || inst.Target >= len(c) {
		return nil, fmt.Errorf("property %s: target output %d of a network with %d outputs", inst.Prop, inst.Target, len(c))
	}
	c[inst.Target] = 1
	in := spec.Inputs{Box: spec.Box{Lo: inst.Lo, Hi: inst.Hi}, Pairing: spec.SameInput}
	row := newACASRow(inst)
	row.Load = report.Number(loadAverage())
	row.RSSReset = resetPeakRSS()

	bctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	cpu := cputime.Process()
	iv, pb, err := intervalBound(f, fp, in, c, cfg.bounds)
	if err != nil {
		return nil, err
	}
	if cfg.method != ACASSDP {
		row.Interval = iv
		row.Seconds += iv.Seconds
		row.take(iv.Bound, ACASInterval.String())
	}
	if row.Unstable1, err = pb.Net1.Unstable(f); err != nil {
		return nil, err
	}
	if row.Unstable2, err = pb.Net2.Unstable(fp); err != nil {
		return nil, err
	}
	for _, d := range pb.DiffPost {
		row.DiffMax = append(row.DiffMax, report.Number(magMax(d)))
	}
	found := 0.0
	if cfg.method != ACASInterval {
		co := cfg.cert
		co.C = c
		sd := sdpBound(bctx, f, fp, in.Box, co)
		row.SDP = sd
		row.Seconds += sd.Seconds
		if sd.Status == certify.Certified.String() {
			row.take(float64(sd.Bound), ACASSDP.String())
		}
		found = sd.found
	}
	row.CPUSeconds = (cputime.Process() - cpu).Seconds()
	if row.Method == "" {
		row.Status, row.Reason = row.SDP.Status, row.SDP.Reason
	}
	row.PeakRSS = report.Number(peakRSS())

	so := cfg.search
	sstart := time.Now()
	res, err := search.MaxError(ctx, f, fp, in, spec.Quantity{C: c}, so)
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

// intervalBound returns the enclosure of c^T (f' - f) by one pass of
// bound propagation with opts, certify.Propagate (the first pass of
// nnbound compare), timed, and the pair bounds of bounds.Pair for the
// table's counts of unstable neurons, untimed.
func intervalBound(f, fp *nn.Network, in spec.Inputs, c []float64, opts bounds.Options) (*ACASIntervalRes, *bounds.PairBounds, error) {
	co := certify.DefaultOptions()
	co.Bounds, co.Split, co.Optimise = opts.Method, opts.Split, opts.Optimise
	start := time.Now()
	e, err := certify.Propagate(f, fp, in, spec.Quantity{C: c}, co)
	if err != nil {
		return nil, nil, err
	}
	iv := &ACASIntervalRes{Lo: e.Margin.Lo, Hi: e.Margin.Hi, Bound: e.Bound, Seconds: time.Since(start).Seconds()}
	pb, err := bounds.Pair(f, fp, in, opts)
	if err != nil {
		return nil, nil, err
	}
	return iv, pb, nil
}

// sdpBound certifies |C^T (f' - f)| by the certificate's SDP with co.
func sdpBound(ctx context.Context, f, fp *nn.Network, box spec.Box, co certjob.Job) *acasSDPRes {
	cert, err := co.Bound(ctx, f, fp, box)
	if err != nil {
		return &acasSDPRes{Status: "error", Reason: err.Error(), Bound: report.Number(math.NaN())}
	}
	s := &acasSDPRes{Status: cert.Status.String(), Reason: cert.Reason + cert.Note, SolverStatus: cert.SDP.Status.String(), Bound: report.Number(cert.Bound),
		Seconds: cert.Time.Seconds(), Size: cert.SDP.Size, Variables: cert.SDP.Variables, Solves: cert.SDP.Solves,
		Iterations: cert.SDP.Iterations, SolverSeconds: cert.SDP.Time.Seconds(), Pieces: len(cert.Pieces),
		found: cert.ObservedError}
	if !cert.Certified() {
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
	return nil, nil, UsageError{fmt.Errorf("--solver %q: want nnbound or csdp", name)}
}
