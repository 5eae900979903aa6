package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/progress"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// Allocation chooses the fractional bits of each layer of a fixed-point
// copy so as to spend the fewest weight bits while the certified bound on
// the output error stays at most Target (nnbound allocate).
//
// It starts where a width sweep would stop: the smallest single width W
// of Widths whose certified bound is at most Target (WidthSweep, in
// batches of Jobs widths, ascending). From every layer at W it lowers
// one layer's fractional bits at a time. Each round certifies, for every
// layer still free, the copy with that layer one bit lower; a candidate
// whose certified bound exceeds Target (or is not certified) freezes its
// layer, and of the others it keeps the one that saves the most weight
// bits per unit of bound increase,
//
//	score = saved bits / max(bound - current bound, 0)   (+Inf when the bound does not grow)
//
// ties going to the larger saving, then the smaller bound, then the
// lower layer. It stops when every layer is frozen or at 1 fractional
// bit. With Starts > 1 it descends again from W+1, W+2, ... and keeps
// the descent ending with the fewest bits; an allocation two descents
// reach is certified once. Every allocation it reports is one whose
// certificate it holds.
//
// With Int8 set, the copies are affine int8 copies instead
// (quantise.Int8 calibrated on the box, Calibrate) and a layer's width is
// the bits of its weights: Widths are those allowed (2 to 8, for example
// 4 and 8), a layer goes down to the next width of Widths, the starts
// are the widths of Widths from W up, and a layer's weight bits are
// those of Int8LayerWidths.
type Allocation struct {
	// Widths are the single widths tried for the start, ascending.
	Widths []int
	// Int8, when not nil, makes int8 copies whose layers' weights have
	// one of Widths bits each, the activations at Int8.Bits (its
	// WeightBits is ignored); nil makes fixed-point copies.
	Int8 *quantise.Int8Options
	// Rounding of weights and biases.
	Rounding quantise.Rounding
	// Target is the largest certified bound accepted (> 0).
	Target float64
	// Opts are the certification options; the input set must not depend
	// on the copy's width (no spec.QuantisedInput).
	Opts certjob.Job
	// Jobs is the number of copies certified at once.
	Jobs int
	// Starts is the number of greedy descents, from every layer at W,
	// W+1, ..., W+Starts-1 fractional bits; the one with the fewest
	// weight bits is kept. 1 (or 0) is the plain greedy from W; a higher
	// start leaves more slack to spread over the layers.
	Starts int
}

// DefaultAllocation returns the settings nnbound allocate starts from:
// three descents, DefaultJobs at once, truncation; the caller sets
// Widths, Target and Opts.
func DefaultAllocation() Allocation {
	return Allocation{Rounding: quantise.Trunc, Jobs: DefaultJobs(), Starts: 3}
}

// Rebuild returns the network to certify and save from a compressed core
// network (modelfile.Info.Transform's processing put back around it).
type Rebuild func(core *nn.Network) (*nn.Network, error)

// AllocationStep is one accepted step of the greedy search: Layer went
// down to FracBits, for a total of TotalBits and a certified Bound.
type AllocationStep struct {
	Layer     int           `json:"layer"`
	FracBits  int           `json:"frac_bits"`
	Bound     report.Number `json:"bound"`
	TotalBits int           `json:"total_bits"`
}

// AllocationResult is what nnbound allocate prints (its --json output,
// with the certificate of the chosen copy beside it).
type AllocationResult struct {
	Model string `json:"model"`
	// Scheme describes an int8 allocation's copies ("" for fixed point,
	// whose widths are fractional bits; for int8 they are weight bits).
	Scheme      string        `json:"scheme,omitempty"`
	Input       InputRecord   `json:"input"`
	QC          string        `json:"qc"`
	TargetError report.Number `json:"target_error"`
	// Sweep are the single widths certified to find the start.
	Sweep []SweepRow `json:"sweep"`
	// Single is the smallest single width meeting the target (FracBits 0:
	// none did, and there is no allocation), SingleLayers its layers and
	// SingleBits their total.
	Single       SweepChoice  `json:"single"`
	SingleLayers []LayerWidth `json:"single_layers,omitempty"`
	SingleBits   int          `json:"single_bits,omitempty"`
	// Layers is the allocation chosen, TotalBits its total and Bound its
	// certified bound.
	Layers    []LayerWidth  `json:"layers,omitempty"`
	TotalBits int           `json:"total_bits,omitempty"`
	Bound     report.Number `json:"bound"`
	// Start is the single width the chosen descent started from, Steps
	// the steps it took.
	Start int              `json:"start_frac_bits,omitempty"`
	Steps []AllocationStep `json:"steps,omitempty"`
	// Candidates is the number of copies certified in the descents (each
	// allocation once).
	Candidates int `json:"candidates"`
	// TimeBudgetHit reports that the time budget stopped some SDP of a
	// candidate: the choice may then depend on the machine's speed.
	TimeBudgetHit bool `json:"time_budget_hit,omitempty"`
	// Status is "cancelled ..." when a signal stopped the search: the
	// allocation is then the best certified before it, if any.
	Status string `json:"status,omitempty"`
	// Saved is the file the chosen copy was saved to, if any.
	Saved string `json:"saved,omitempty"`
	// Record is the certificate of the chosen copy (NewRecord).
	Record *Record `json:"certificate,omitempty"`

	// Net is the chosen copy and Certificate its certificate; nil when
	// no single width meets the target.
	Net         *nn.Network          `json:"-"`
	Certificate *certify.Certificate `json:"-"`
}

// cancelled is the Status of a search a signal stopped.
const cancelled = "cancelled by a signal: the allocation is the best certified before it"

// Met reports whether an allocation meeting the target was found.
func (r *AllocationResult) Met() bool { return r.Certificate != nil }

// candidate is one per-layer allocation with its certificate.
type candidate struct {
	fbs    []int
	layers []LayerWidth
	net    *nn.Network
	cert   *certify.Certificate
}

// bits returns the total weight bits of c.
func (c *candidate) bits() int { return TotalBits(c.layers) }

// Run allocates the fractional bits of core's layers (core is the network
// f1 without its format's processing, which rebuild puts back), the
// copies certified against f1 over box, showing progress on stderr.
// Not meeting the target is a result (Met false), not an error.
func (a *Allocation) Run(ctx context.Context, f1, core *nn.Network, rebuild Rebuild, box spec.Box, stderr io.Writer) (*AllocationResult, error) {
	if !(a.Target > 0) || math.IsInf(a.Target, 1) {
		return nil, fmt.Errorf("experiment: allocation target %v, want a positive number", a.Target)
	}
	if a.Opts.Pairing == spec.QuantisedInput {
		return nil, fmt.Errorf("experiment: allocation with quantised inputs: the input quantiser would depend on the layer widths")
	}
	if len(a.Widths) == 0 || !slices.IsSorted(a.Widths) {
		return nil, fmt.Errorf("experiment: allocation widths %v, want some, ascending", a.Widths)
	}
	scheme, err := a.scheme(core, box)
	if err != nil {
		return nil, err
	}
	s := &search{a: a, f1: f1, core: core, rebuild: rebuild, scheme: scheme, box: box, stderr: stderr, certs: map[string]*certify.Certificate{},
		r: &AllocationResult{TargetError: report.Number(a.Target), Bound: nan(),
			Input: InputRecord{Lo: box.Lo, Hi: box.Hi, Pairing: a.Opts.Pairing.String()}, QC: a.Opts.QC.String()}}
	r := s.r
	if a.Int8 != nil {
		r.Scheme = fmt.Sprintf("%v, calibrated on the box; weights of %s bits per layer", *a.Int8, joinInts(a.Widths))
	}
	w, err := s.start(ctx)
	if ctx.Err() != nil {
		r.Status = cancelled
		return r, nil
	}
	if err != nil || w == 0 {
		return r, err
	}
	single, err := s.candidate(uniform(len(core.Layers), w))
	if err != nil {
		return nil, err
	}
	r.SingleLayers, r.SingleBits = single.layers, single.bits()
	var cur *candidate
	for _, fb := range scheme.starts(w, a.Starts) {
		end, steps, err := s.descend(ctx, fb)
		if err != nil && ctx.Err() == nil {
			return nil, err
		}
		// end is certified even when a signal stopped the descent; W+1 and
		// above may fail to certify where W did not (end nil)
		if end != nil && (cur == nil || end.bits() < cur.bits() || end.bits() == cur.bits() && end.cert.Bound < cur.cert.Bound) {
			cur, r.Start, r.Steps = end, fb, steps
		}
		if ctx.Err() != nil {
			r.Status = cancelled
			break
		}
	}
	switch {
	case cur == nil && r.Status != "":
		return r, nil
	case cur == nil: // the copy at W certified once, not on a rerun
		return nil, fmt.Errorf("experiment: the copy at %d fractional bits certified %v in the sweep, not on a rerun", w, r.Single.Bound)
	}
	r.Layers, r.TotalBits, r.Bound = cur.layers, cur.bits(), report.Number(cur.cert.Bound)
	r.Net, r.Certificate = cur.net, cur.cert
	rec := NewRecord(cur.cert)
	r.Record = &rec
	return r, nil
}

// search is one run of an Allocation: its question, the result so far
// and the certificates of the allocations certified, by their widths
// (the same copy under the same options is certified once).
type search struct {
	a       *Allocation
	f1      *nn.Network
	core    *nn.Network
	rebuild Rebuild
	scheme  layerScheme
	box     spec.Box
	stderr  io.Writer
	r       *AllocationResult
	certs   map[string]*certify.Certificate
}

// descend certifies the copy with every layer at fb fractional bits and,
// if it meets the target, lowers its layers greedily (round) until none
// can go lower; it returns the last copy and the steps taken, or nil if
// the start does not meet the target.
func (s *search) descend(ctx context.Context, fb int) (*candidate, []AllocationStep, error) {
	cur, err := s.candidate(uniform(len(s.core.Layers), fb))
	if err != nil {
		return nil, nil, err
	}
	if err := s.certify(ctx, []*candidate{cur}, "allocate"); err != nil {
		return nil, nil, err
	}
	if cur.cert == nil || !cur.cert.Certified() || !(cur.cert.Bound <= s.a.Target) {
		return nil, nil, ctx.Err()
	}
	var steps []AllocationStep
	frozen := make([]bool, len(s.core.Layers))
	for {
		next, err := s.round(ctx, cur, frozen)
		if err != nil || next == nil {
			return cur, steps, err
		}
		k := changed(cur.fbs, next.fbs)
		cur = next
		steps = append(steps, AllocationStep{Layer: k, FracBits: cur.fbs[k], Bound: report.Number(cur.cert.Bound), TotalBits: cur.bits()})
	}
}

// start certifies the single widths in batches of Jobs, ascending, until
// one meets the target, records the rows in r and returns that width (0
// for none).
func (s *search) start(ctx context.Context) (int, error) {
	copyOf := func(_ PruneLevel, q quantise.Format) (*nn.Network, error) {
		c, err := s.candidate(uniform(len(s.core.Layers), q.FracBits))
		if err != nil {
			return nil, err
		}
		return c.net, nil
	}
	levels := []PruneLevel{{}}
	a, r := s.a, s.r
	jobs := max(a.Jobs, 1)
	r.Single = SweepChoice{Prune: levels[0].String(), Bound: nan()}
	for i := 0; i < len(a.Widths); i += jobs {
		sw := WidthSweep{Widths: a.Widths[i:min(i+jobs, len(a.Widths))], Levels: levels, Rounding: a.Rounding, Opts: s.opts(), Jobs: jobs}
		rows, err := sw.Run(ctx, s.f1, s.box, copyOf, s.stderr)
		if err != nil {
			return 0, err
		}
		r.Sweep = append(r.Sweep, rows...)
		for _, row := range rows {
			r.TimeBudgetHit = r.TimeBudgetHit || row.TimeBudgetHit
		}
		if c := SmallestWidths(rows, levels, a.Target)[0]; c.FracBits > 0 {
			r.Single = c
			return c.FracBits, nil
		}
	}
	return 0, nil
}

// certify certifies the candidates not certified before, Jobs at a time,
// with a progress bar named name, and sets every candidate's cert.
func (s *search) certify(ctx context.Context, cands []*candidate, name string) error {
	var todo []*candidate
	for _, c := range cands {
		if c.cert = s.certs[fmt.Sprint(c.fbs)]; c.cert == nil {
			todo = append(todo, c)
		}
	}
	bar := progress.New(s.stderr, name, len(todo))
	defer bar.Done()
	err := Parallel(ctx, len(todo), max(s.a.Jobs, 1), func(ctx context.Context, i int) error {
		c, err := s.opts().Bound(ctx, s.f1, todo[i].net, s.box)
		todo[i].cert = c
		bar.Add(1)
		return err
	})
	for _, c := range todo {
		if c.cert == nil {
			continue
		}
		s.r.TimeBudgetHit = s.r.TimeBudgetHit || c.cert.TimeBudgetHit
		if c.cert.Status != certify.Cancelled {
			s.certs[fmt.Sprint(c.fbs)] = c.cert
			s.r.Candidates++
		}
	}
	return err
}

// round certifies, for each layer not frozen and not at the bottom, cur
// with that layer one width lower; it freezes the layers whose candidate
// misses the target and returns the best of the others (nil if none).
func (s *search) round(ctx context.Context, cur *candidate, frozen []bool) (*candidate, error) {
	var cands []*candidate
	for k := range cur.fbs {
		w, ok := s.scheme.lower(cur.fbs[k])
		if frozen[k] || !ok {
			continue
		}
		fbs := slices.Clone(cur.fbs)
		fbs[k] = w
		c, err := s.candidate(fbs)
		if err != nil {
			return nil, err
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	if err := s.certify(ctx, cands, fmt.Sprintf("allocate %d bits", cur.bits())); err != nil {
		return nil, err
	}
	var best *candidate
	bestScore := 0.0
	for _, c := range cands {
		if c.cert == nil { // left undone by a signal
			continue
		}
		if !c.cert.Certified() || !(c.cert.Bound <= s.a.Target) {
			if c.cert.Status == certify.Cancelled {
				continue // a signal, not the candidate, stopped it
			}
			frozen[changed(cur.fbs, c.fbs)] = true
			continue
		}
		saved := float64(cur.bits() - c.bits())
		if saved <= 0 { // rounding grew the integer bits: no saving
			continue
		}
		score := math.Inf(1)
		if grow := c.cert.Bound - cur.cert.Bound; grow > 0 {
			score = saved / grow
		}
		if best == nil || better(score, saved, c.cert.Bound, bestScore, float64(cur.bits()-best.bits()), best.cert.Bound) {
			best, bestScore = c, score
		}
	}
	return best, nil
}

// better reports whether a candidate of score s, saving saved bits at
// bound b, beats the best so far (score s0, saving saved0, bound b0);
// on a full tie the earlier (lower) layer stays.
func better(s, saved, b, s0, saved0, b0 float64) bool {
	switch {
	case s != s0:
		return s > s0
	case saved != saved0:
		return saved > saved0
	}
	return b < b0
}

// candidate quantises core with widths fbs by the search's scheme.
func (s *search) candidate(fbs []int) (*candidate, error) {
	return newCandidate(s.core, s.rebuild, s.scheme, fbs)
}

// scheme returns the scheme of a's copies of core over box.
func (a *Allocation) scheme(core *nn.Network, box spec.Box) (layerScheme, error) {
	if a.Int8 == nil {
		return fixedScheme{a.Rounding}, nil
	}
	return newInt8Scheme(core, nil, box, *a.Int8, a.Widths)
}

// uniform returns n copies of fb.
func uniform(n, fb int) []int {
	out := make([]int, n)
	for k := range out {
		out[k] = fb
	}
	return out
}

// changed returns the layer at which a and b differ.
func changed(a, b []int) int {
	for k := range a {
		if a[k] != b[k] {
			return k
		}
	}
	panic("experiment: candidate equal to the current allocation")
}

// opts returns the certification options of the candidates: the
// allocation's, a bound at most the target being enough (Refine.Enough:
// no SDP or split to tighten it further).
func (s *search) opts() certjob.Job {
	o := s.a.Opts
	o.Refine.Enough = s.a.Target
	return o
}
