package certify

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/search"
)

// ErrDimension reports networks or a box whose sizes do not fit.
var ErrDimension = errors.New("dimension mismatch")

// solveSDP is the SDP solver; tests replace it to compare with others.
var solveSDP = sdp.Solve

// Bound certifies an upper bound on ||f1(x1) - f2(x2)||_2 for every x1 in
// box and x2 paired with x1 by opts.Pairing, by the SDP of Theorem 1 of Li,
// Drummond and Duncan (L4DC 2021) with the QC set opts.QC, checks the
// solution independently of the solver, and reports the largest error
// observed at actual inputs next to it.
//
// The error is non-nil only for invalid input (networks that do not fit
// each other or the box, invalid options); whether a bound was certified
// is Certificate.Status.
func Bound(ctx context.Context, f1, f2 *nn.Network, box bounds.Box, opts Options) (*Certificate, error) {
	start := time.Now()
	if err := checkInput(f1, f2, box, &opts); err != nil {
		return nil, err
	}
	var c *Certificate
	switch {
	case opts.Method == MethodInterval:
		c = intervalBound(ctx, f1, f2, box, opts)
	case opts.C == nil && opts.Norm == search.NormInf && f1.OutputSize() > 1 && opts.InfJoint:
		c = jointInfBound(ctx, f1, f2, box, opts)
	case opts.C == nil && opts.Norm == search.NormInf && f1.OutputSize() > 1:
		c = infBound(ctx, f1, f2, box, opts)
	default:
		c = sdpBound(ctx, f1, f2, box, opts)
	}
	c.Method = opts.Method
	c.Time = time.Since(start)
	return c, nil
}

// infBound certifies max_j |f1_j - f2_j| by one SDP per output j (with
// C = e_j) and takes the largest bound; the gammas are those of the output
// with the largest bound.
func infBound(ctx context.Context, f1, f2 *nn.Network, box bounds.Box, opts Options) *Certificate {
	var worst *Certificate
	outs := make([]float64, f1.OutputSize())
	var stats SDPStats
	sdpB, ivB := 0.0, 0.0
	for j := range outs {
		o := opts
		o.C = make([]float64, len(outs))
		o.C[j] = 1
		c := sdpBound(ctx, f1, f2, box, o)
		outs[j] = c.Bound
		sdpB, ivB = max(sdpB, c.SDPBound), max(ivB, c.IntervalBound)
		stats.Solves += c.SDP.Solves
		stats.Iterations += c.SDP.Iterations
		stats.Time += c.SDP.Time
		switch {
		case worst == nil:
			worst = c
		case !worst.Certified:
		case !c.Certified || c.Bound > worst.Bound:
			worst = c
		}
	}
	ob := searchError(ctx, f1, f2, box, &opts)
	worst.ObservedError, worst.X1, worst.X2, worst.ObservedExact = ob.err, ob.x1, ob.x2, ob.exact
	stats.Size, stats.Variables, stats.Status, stats.Objective = worst.SDP.Size, worst.SDP.Variables, worst.SDP.Status, worst.SDP.Objective
	worst.SDP = stats
	worst.Outputs = outs
	worst.SDPBound, worst.IntervalBound = sdpB, ivB
	worst.Pieces = nil
	return worst
}

// intervalBound returns the bound of bound propagation alone: the output
// difference enclosure of bounds.Pair (the margin c^T (f2 - f1) for C).
func intervalBound(ctx context.Context, f1, f2 *nn.Network, box bounds.Box, opts Options) *Certificate {
	c := &Certificate{RootBound: math.Inf(1), Bound: math.Inf(1), Source: MethodInterval, SDPBound: math.Inf(1)}
	pb, err := bounds.Pair(f1, f2, bounds.Inputs{Box: box, Pairing: opts.Pairing, Quant: opts.Quant},
		bounds.Options{Method: opts.Bounds})
	if err == nil && opts.C != nil {
		var m bounds.Interval
		if m, err = pb.Margin(opts.C); err == nil {
			c.Bound = m.Mag()
		}
	} else if err == nil {
		sq := 0.0
		for j, iv := range pb.Output {
			mag := iv.Mag()
			c.Outputs = append(c.Outputs, mag)
			if opts.Norm == search.NormInf {
				sq = max(sq, mag)
				continue
			}
			if j == 0 {
				sq = upMul(mag, mag)
			} else {
				sq = upAdd(sq, upMul(mag, mag))
			}
		}
		c.Bound = sq
		if opts.Norm != search.NormInf {
			c.Bound = sqrtUp(sq)
		}
	}
	if err != nil || math.IsNaN(c.Bound) || math.IsInf(c.Bound, 0) {
		c.Status, c.Reason = CheckFailed, "bound propagation gave no finite bound"
		if err != nil {
			c.Reason = err.Error()
		}
	} else {
		c.Certified, c.Status, c.RootBound, c.IntervalBound = true, Certified, c.Bound, c.Bound
		c.Gamma = upMul(c.Bound, c.Bound)
	}
	ob := searchError(ctx, f1, f2, box, &opts)
	c.ObservedError, c.X1, c.X2, c.ObservedExact = ob.err, ob.x1, ob.x2, ob.exact
	return c
}

// sdpBound certifies with the SDP, splitting the input set if the options
// allow.
func sdpBound(ctx context.Context, f1, f2 *nn.Network, box bounds.Box, opts Options) *Certificate {
	start := time.Now()
	root := rootRegion(box, &opts)
	c := &Certificate{}
	rp := certifyRegion(ctx, f1, f2, &root, &opts)
	c.SDP = SDPStats{Size: rp.size, Variables: rp.vars, Solves: 1, Iterations: rp.iters, Time: rp.time,
		Status: rp.sdpStatus, Objective: rp.objective}
	c.RootBound, c.SDPBound, c.IntervalBound = math.Inf(1), rp.sdpBound, rp.ivBound
	if rp.ok {
		c.Gammas, c.Margin, c.RootBound = rp.gammas, rp.margin, rp.bound
		if rp.interval && rp.reason != "" {
			c.Reason = "root " + rp.reason
		}
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6e6e626f756e64))
	ob := searchError(ctx, f1, f2, box, &opts)

	leaves := []piece{{region: root, bound: rp.bound, ok: rp.ok, interval: rp.interval}}
	if opts.QC == QCDefault && opts.Refine.MaxPieces > 1 {
		leaves = refine(ctx, f1, f2, root, rp, &opts, &ob, rng, c, start)
	}
	c.Bound = 0
	allOK := true
	byInterval := false // the largest piece bound is an output enclosure's
	for _, lf := range leaves {
		if !lf.ok {
			allOK = false
			break
		}
		if lf.bound >= c.Bound {
			c.Bound, byInterval = lf.bound, lf.interval
		}
	}
	if len(leaves) > 1 {
		for _, lf := range leaves {
			c.Pieces = append(c.Pieces, Piece{Lo1: lf.region.Box1.Lo, Hi1: lf.region.Box1.Hi,
				Lo2: lf.region.Box2.Lo, Hi2: lf.region.Box2.Hi, Bound: lf.bound})
		}
	}
	switch {
	case allOK:
		if c.RootBound <= c.Bound {
			c.Bound, byInterval = c.RootBound, rp.interval
			c.Pieces = nil
		}
		c.Certified, c.Status = true, Certified
		if byInterval {
			c.Source = MethodInterval
		}
	case ctx.Err() != nil:
		c.Status, c.Reason, c.Bound = Cancelled, ctx.Err().Error(), math.Inf(1)
	default:
		c.Status, c.Reason, c.Bound = rp.status, rp.reason, math.Inf(1)
		if rp.ok {
			c.Status, c.Reason = SolverFailed, "a piece of the split input set could not be certified"
		}
	}
	if !rp.ok && c.Certified {
		c.Reason = "root SDP: " + rp.reason + "; bound from the split input set"
	}
	c.ObservedError, c.X1, c.X2, c.ObservedExact = ob.err, ob.x1, ob.x2, ob.exact
	return c
}

// checkInput validates the networks, the box and the options.
func checkInput(f1, f2 *nn.Network, box bounds.Box, o *Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	for n, f := range [2]*nn.Network{f1, f2} {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("certify: network %d: %w", n+1, err)
		}
	}
	if err := box.Validate(); err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	if f1.InputSize() != box.Dim() || f2.InputSize() != box.Dim() {
		return fmt.Errorf("certify: networks take %d and %d inputs, box has %d: %w",
			f1.InputSize(), f2.InputSize(), box.Dim(), ErrDimension)
	}
	if f1.OutputSize() != f2.OutputSize() {
		return fmt.Errorf("certify: network 1 has %d outputs, network 2 has %d: %w",
			f1.OutputSize(), f2.OutputSize(), ErrDimension)
	}
	return nil
}

// regionResult is the outcome of certifying one region.
type regionResult struct {
	ok        bool
	status    Status
	reason    string
	gammas    Gammas
	margin    float64
	bound     float64
	size      int
	vars      int
	iters     int
	time      time.Duration
	sdpStatus sdp.Status
	objective float64
	// interval reports that the bound is the output enclosure's, not the
	// SDP's (smaller, or the SDP failed).
	interval bool
	// sdpBound is the SDP's own bound (+Inf if it failed) and ivBound the
	// output enclosure's.
	sdpBound, ivBound float64
}

// maxMargin is the largest residual the check absorbs, relative to the
// worst-case value of the solver's gammas: a larger one means the solve
// failed, whatever its status says.
const maxMargin = 1e-3

// certifyRegion builds, solves and checks the SDP of one region.
func certifyRegion(ctx context.Context, f1, f2 *nn.Network, r *region, o *Options) regionResult {
	rb, err := boundsOf(f1, f2, r, o)
	if err != nil {
		return regionResult{bound: math.Inf(1), status: CheckFailed, reason: err.Error()}
	}
	res := sdpRegion(ctx, f1, f2, r, rb, o)
	// The output enclosure is a bound too: keep the smaller, and fall back
	// on it when the SDP failed (on small pieces it is nearly as tight).
	iv := rb.intervalValue(o)
	res.sdpBound, res.ivBound = res.bound, iv
	if math.IsNaN(iv) || math.IsInf(iv, 0) || (res.ok && res.bound <= iv) {
		return res
	}
	if !res.ok && res.status == Cancelled {
		return res
	}
	if !res.ok {
		res.reason = "SDP: " + res.reason + "; interval bound used"
		res.gammas, res.margin = Gammas{}, 0
	}
	res.ok, res.status, res.interval = true, Certified, true
	res.bound = iv
	res.gammas = Gammas{Gamma: upMul(iv, iv)}
	return res
}

// sdpRegion builds, solves and checks the SDP of one region with bounds rb.
func sdpRegion(ctx context.Context, f1, f2 *nn.Network, r *region, rb *regionBounds, o *Options) regionResult {
	res := regionResult{bound: math.Inf(1)}
	m, err := buildLMI(f1, f2, r, rb, o)
	if err != nil {
		res.status, res.reason = CheckFailed, err.Error()
		return res
	}
	sp := m.problem(weights(r, o), rb.expected(o))
	res.size, res.vars = m.layout.Dim, len(sp.C)
	x, ok := runSolver(ctx, sp, o, &res)
	if !ok {
		return res
	}
	ck, err := m.check(sp, x)
	if err != nil {
		res.status, res.reason = CheckFailed, err.Error()
		return res
	}
	if reason, bad := disguisedFailure(ck, r, o); bad {
		res.status, res.reason = CheckFailed, reason
		return res
	}
	res.ok, res.status = true, Certified
	res.gammas, res.margin = ck.gammas, ck.margin
	res.bound = sqrtUp(worstValue(ck.gammas, r, o))
	if o.Log != nil {
		fmt.Fprintf(o.Log, "certify: x1 in %v..%v: bound %.6g (LMI %d, %d variables, %d iterations, margin %.2g)\n",
			r.Box1.Lo, r.Box1.Hi, res.bound, res.size, res.vars, res.iters, res.margin)
	}
	return res
}

// runSolver solves sp with the configured solver and records how the solve
// went in res. It returns the solver's x when the solve ended optimal or
// near-optimal; otherwise res has the status and reason.
func runSolver(ctx context.Context, sp *sdpProblem, o *Options, res *regionResult) ([]float64, bool) {
	settings := o.Solver
	solve := solveSDP
	if o.Solve != nil {
		solve = o.Solve
	}
	sol, err := solve(ctx, sp.Problem, &settings)
	if err == nil && failed(sol.Status) && settings.GapTol < maxRetryGap {
		// Near the optimum of the larger SDPs the solver can stall short
		// of its gap tolerance: retry with a ten times looser one (the
		// bound needs little accuracy; the check makes it sound anyway).
		retry := settings
		retry.GapTol = min(10*settings.GapTol, maxRetryGap)
		first := sol
		if sol, err = solve(ctx, sp.Problem, &retry); err == nil {
			sol.Iterations += first.Iterations
			sol.Time += first.Time
		}
	}
	if err != nil {
		res.status, res.reason = SolverFailed, err.Error()
		return nil, false
	}
	res.iters, res.time, res.sdpStatus, res.objective = sol.Iterations, sol.Time, sol.Status, sol.PrimalObjective*sp.objScale
	switch sol.Status {
	case sdp.Optimal, sdp.NearOptimal:
		return sol.X, true
	case sdp.Cancelled:
		res.status, res.reason = Cancelled, "SDP solve cancelled"
	default:
		res.status, res.reason = SolverFailed, "SDP solver ended with status "+sol.Status.String()
	}
	return nil, false
}

// failed reports a status of a solve that neither reached a solution nor
// was cancelled.
func failed(s sdp.Status) bool {
	return s != sdp.Optimal && s != sdp.NearOptimal && s != sdp.Cancelled
}

// maxRetryGap is the loosest gap tolerance a failed solve is retried with.
const maxRetryGap = 1e-3

// piece is a leaf of the refinement.
type piece struct {
	region   region
	bound    float64
	ok       bool
	interval bool // the bound is the output enclosure's
	final    bool // cannot or need not be split further
}

// pieceHeap is a max-heap of pieces by bound.
type pieceHeap []piece

func (h pieceHeap) Len() int           { return len(h) }
func (h pieceHeap) Less(i, j int) bool { return h[i].bound > h[j].bound }
func (h pieceHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pieceHeap) Push(x any)        { *h = append(*h, x.(piece)) }
func (h *pieceHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}

// refine splits the input set (branch and bound): the piece with the
// largest bound is split in two and each half certified, until the largest
// bound is within Refine.TargetRatio of the observed error, or the budget
// of solves or time is used. A piece whose halves cannot both be certified
// keeps its own bound. The pieces cover the root region, so the largest
// bound over them is a bound on the whole set.
func refine(ctx context.Context, f1, f2 *nn.Network, root region, rp regionResult, o *Options,
	ob *observation, rng *rand.Rand, c *Certificate, start time.Time) []piece {
	h := &pieceHeap{{region: root, bound: rp.bound, ok: rp.ok, interval: rp.interval}}
	var done []piece
	for h.Len() > 0 {
		top := (*h)[0]
		if top.ok && top.bound <= o.Refine.TargetRatio*ob.err {
			break
		}
		if c.SDP.Solves+2 > o.Refine.MaxPieces || ctx.Err() != nil ||
			(o.Refine.TimeBudget > 0 && time.Since(start) > o.Refine.TimeBudget) {
			break
		}
		heap.Pop(h)
		a, b, ok := top.region.split(root, o.Quant)
		if !ok {
			top.final = true
			done = append(done, top)
			continue
		}
		ra := certifyRegion(ctx, f1, f2, &a, o)
		rb := certifyRegion(ctx, f1, f2, &b, o)
		c.SDP.Solves += 2
		c.SDP.Iterations += ra.iters + rb.iters
		c.SDP.Time += ra.time + rb.time
		ob.observe(f1, f2, &a, o, rng, 8)
		ob.observe(f1, f2, &b, o, rng, 8)
		if !ra.ok || !rb.ok {
			if top.ok {
				top.final = true
				done = append(done, top)
				continue
			}
		}
		heap.Push(h, piece{region: a, bound: ra.bound, ok: ra.ok, interval: ra.interval})
		heap.Push(h, piece{region: b, bound: rb.bound, ok: rb.ok, interval: rb.interval})
	}
	return append(done, (*h)...)
}

// searchError returns the largest error search.MaxError finds on the
// input set (exact for one input and piecewise-linear networks).
func searchError(ctx context.Context, f1, f2 *nn.Network, box bounds.Box, o *Options) observation {
	so := search.DefaultOptions()
	so.Samples, so.Seed, so.Norm, so.C = o.Samples, o.Seed, o.Norm, o.C
	res, err := search.MaxError(ctx, f1, f2, bounds.Inputs{Box: box, Pairing: o.Pairing, Quant: o.Quant}, so)
	if res == nil || (err != nil && ctx.Err() == nil) {
		// Invalid input was reported by checkInput already; sample instead.
		var ob observation
		r := rootRegion(box, o)
		ob.observe(f1, f2, &r, o, rand.New(rand.NewPCG(o.Seed, 1)), o.Samples)
		return ob
	}
	return observation{err: res.Error, x1: res.X1, x2: res.X2, exact: res.Exact}
}
