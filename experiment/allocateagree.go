package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// AgreementJudge certifies the top-1 agreement of a copy with the
// original network on the caller's test set: it returns how many of the
// samples' balls are certified to agree (a disagreement found or an
// unknown ball counts against) and how many samples there are. name
// identifies the copy by its widths, "fb-3-5-2" (int8: "w-8-4-8"), for
// logs. nnbound allocate builds it from package agree and agree/top1's
// decider.
type AgreementJudge func(ctx context.Context, copy *nn.Network, name string) (agreed, samples int, err error)

// AgreementAllocation chooses the fractional bits of each layer of a
// fixed-point copy so as to spend the fewest weight bits while the
// certified top-1 agreement rate on a test set stays at least Target
// (nnbound allocate --target-agreement).
//
// It starts at the smallest single width W of Widths whose certified
// rate is at least Target (ascending; and from the Starts - 1 widths
// after it, keeping the descent ending with the fewest bits), then
// lowers one layer's
// fractional bits at a time: each round judges, for every layer still
// free and above 1 bit, the copy with that layer one bit lower; a
// candidate below Target freezes its layer, and of the others it keeps
// the one saving the most weight bits, ties going to the higher rate,
// then the lower layer. Every allocation it reports is one its judge
// certified; each is judged once.
//
// With Int8 set, the copies are affine int8 copies whose layers' weights
// have one of Widths bits each, as for Allocation, calibrated on the
// inputs Calibration (the test set's samples, say).
type AgreementAllocation struct {
	// Widths are the single widths tried for the start, ascending.
	Widths []int
	// Int8, when not nil, makes int8 copies (see Allocation.Int8);
	// Calibration are then the inputs their quantisers are calibrated on.
	Int8        *quantise.Int8Options
	Calibration [][]float64
	// Rounding of weights and biases.
	Rounding quantise.Rounding
	// Target is the smallest certified agreement rate accepted, in (0, 1].
	Target float64
	// Starts is the number of greedy descents, from the smallest width
	// W meeting the target and the widths of Widths after it; the one
	// ending with the fewest weight bits is kept (0 or 1: from W only).
	Starts int
}

// AgreementRow is one copy judged: its widths, the balls certified to
// agree, and its weight bits.
type AgreementRow struct {
	FracBits []int `json:"frac_bits"`
	Agreed   int   `json:"agreed"`
	Bits     int   `json:"bits"`
}

// AgreementResult is what nnbound allocate --target-agreement prints
// (its --json output).
type AgreementResult struct {
	Model string `json:"model"`
	// Scheme describes an int8 allocation's copies ("" for fixed point,
	// whose widths are fractional bits; for int8 they are weight bits).
	Scheme          string  `json:"scheme,omitempty"`
	TargetAgreement float64 `json:"target_agreement"`
	Samples         int     `json:"samples"`
	// Sweep are the single widths judged to find the start; Single is
	// the first meeting the target (nil: none did, and there is no
	// allocation) and SingleLayers its layers.
	Sweep        []AgreementRow `json:"sweep"`
	Single       *AgreementRow  `json:"single,omitempty"`
	SingleLayers []LayerWidth   `json:"single_layers,omitempty"`
	// Layers is the allocation chosen, Agreed its certified balls.
	Layers    []LayerWidth `json:"layers,omitempty"`
	TotalBits int          `json:"total_bits,omitempty"`
	Agreed    int          `json:"agreed"`
	// Start is the single width the descent kept started from, Steps the
	// copies it accepted on the way down.
	Start int            `json:"start_frac_bits,omitempty"`
	Steps []AgreementRow `json:"steps,omitempty"`
	// Candidates is the number of copies judged.
	Candidates int `json:"candidates"`
	// Saved is the file the chosen copy was saved to, if any.
	Saved string `json:"saved,omitempty"`
	// Net is the chosen copy (nil when none meets the target).
	Net *nn.Network `json:"-"`
}

// Met reports whether an allocation meeting the target was found.
func (r *AgreementResult) Met() bool { return r.Net != nil }

// Run allocates the fractional bits of core's layers (the original
// network without its format's processing, which rebuild puts back), the
// copies judged by judge. Not meeting the target is a result (Met
// false), not an error; a cancelled ctx stops the search with its error.
func (a *AgreementAllocation) Run(ctx context.Context, core *nn.Network, rebuild Rebuild, judge AgreementJudge) (*AgreementResult, error) {
	if !(a.Target > 0 && a.Target <= 1) {
		return nil, fmt.Errorf("experiment: agreement target %v, want a rate in (0, 1]", a.Target)
	}
	if len(a.Widths) == 0 || !slices.IsSorted(a.Widths) {
		return nil, fmt.Errorf("experiment: allocation widths %v, want some, ascending", a.Widths)
	}
	r := &AgreementResult{TargetAgreement: a.Target}
	var scheme layerScheme = fixedScheme{a.Rounding}
	prefix := "fb"
	if a.Int8 != nil {
		if len(a.Calibration) == 0 {
			return nil, fmt.Errorf("experiment: int8 agreement allocation without calibration inputs")
		}
		s, err := newInt8Scheme(core, a.Calibration, spec.Box{}, *a.Int8, a.Widths)
		if err != nil {
			return nil, err
		}
		scheme, prefix = s, "w"
		r.Scheme = fmt.Sprintf("%v, calibrated on the test set; weights of %s bits per layer", *a.Int8, joinInts(a.Widths))
	}
	seen := map[string]AgreementRow{}
	// judged returns the candidate of fbs and its row, judging it once.
	judged := func(fbs []int) (*candidate, AgreementRow, error) {
		c, err := newCandidate(core, rebuild, scheme, fbs)
		if err != nil {
			return nil, AgreementRow{}, err
		}
		key := fmt.Sprint(fbs)
		if row, ok := seen[key]; ok {
			return c, row, nil
		}
		agreed, n, err := judge(ctx, c.net, widthsName(prefix, fbs))
		if err != nil {
			return nil, AgreementRow{}, err
		}
		r.Samples = n
		row := AgreementRow{FracBits: slices.Clone(fbs), Agreed: agreed, Bits: c.bits()}
		seen[key] = row
		r.Candidates++
		return c, row, nil
	}
	meets := func(row AgreementRow) bool { return row.Agreed >= a.needed(r.Samples) }
	w := -1
	for i, fb := range a.Widths {
		c, row, err := judged(uniform(len(core.Layers), fb))
		if err != nil {
			return nil, err
		}
		r.Sweep = append(r.Sweep, row)
		if meets(row) {
			r.Single, r.SingleLayers, w = &row, c.layers, i
			break
		}
	}
	if w < 0 {
		return r, nil
	}
	var best *candidate
	var bestRow AgreementRow
	for _, fb := range a.Widths[w:min(w+max(a.Starts, 1), len(a.Widths))] {
		c, row, err := judged(uniform(len(core.Layers), fb))
		if err != nil {
			return nil, err
		}
		if !meets(row) {
			continue
		}
		var steps []AgreementRow
		frozen := make([]bool, len(core.Layers))
		for {
			next, nextRow, err := a.round(scheme, c, row, frozen, judged, meets)
			if err != nil {
				return nil, err
			}
			if next == nil {
				break
			}
			c, row = next, nextRow
			steps = append(steps, row)
		}
		if best == nil || row.Bits < bestRow.Bits {
			best, bestRow, r.Start, r.Steps = c, row, fb, steps
		}
	}
	r.Layers, r.TotalBits, r.Agreed, r.Net = best.layers, best.bits(), bestRow.Agreed, best.net
	return r, nil
}

// round judges cur with each layer not frozen and not at the bottom one
// width lower (scheme.lower); it freezes the layers whose copy misses the
// target and returns the copy of the others saving the most bits (nil if
// none).
func (a *AgreementAllocation) round(scheme layerScheme, cur *candidate, curRow AgreementRow, frozen []bool,
	judged func([]int) (*candidate, AgreementRow, error), meets func(AgreementRow) bool) (*candidate, AgreementRow, error) {
	var best *candidate
	var bestRow AgreementRow
	for k := range cur.fbs {
		w, ok := scheme.lower(cur.fbs[k])
		if frozen[k] || !ok {
			continue
		}
		fbs := slices.Clone(cur.fbs)
		fbs[k] = w
		c, row, err := judged(fbs)
		if err != nil {
			return nil, AgreementRow{}, err
		}
		switch {
		case !meets(row):
			frozen[k] = true
		case row.Bits >= curRow.Bits: // rounding grew the integer bits
		case best == nil || row.Bits < bestRow.Bits || row.Bits == bestRow.Bits && row.Agreed > bestRow.Agreed:
			best, bestRow = c, row
		}
	}
	return best, bestRow, nil
}

// widthsName returns "prefix-A-B-..." for the widths fbs.
func widthsName(prefix string, fbs []int) string {
	name := prefix
	for _, fb := range fbs {
		name += fmt.Sprintf("-%d", fb)
	}
	return name
}

// needed returns the fewest certified balls of n meeting the target.
func (a *AgreementAllocation) needed(n int) int {
	k := int(math.Ceil(a.Target * float64(n)))
	if float64(k-1) >= a.Target*float64(n) { // the product rounded up past an integer
		k--
	}
	return k
}

// WriteText prints r for people: a heading naming network and question,
// the single widths judged, the per-layer table (AllocationTable) and
// the totals.
func (r *AgreementResult) WriteText(w io.Writer, network, question string) error {
	width, chosen := "FB", "fractional bits chosen per layer"
	if r.Scheme != "" {
		width, chosen = "width", "the bits of the weights chosen per layer\ncopies: "+r.Scheme
	}
	fmt.Fprintf(w, "nnbound allocate: %s\n%s\n", network, question)
	fmt.Fprintf(w, "target: certified top-1 agreement on at least %s of the %d balls with the fewest weight bits, %s\n\n",
		percent(r.TargetAgreement), r.Samples, chosen)
	t := report.NewTable(width, "agreed", "rate", "bits")
	for _, row := range r.Sweep {
		t.AddRow(fmt.Sprint(row.FracBits[0]), fmt.Sprint(row.Agreed), percent(float64(row.Agreed)/float64(max(r.Samples, 1))), fmt.Sprint(row.Bits))
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if !r.Met() {
		fmt.Fprintf(w, "no single %s tried is certified to agree on %s of the balls: nothing to allocate from\n", width, percent(r.TargetAgreement))
		return nil
	}
	fb := r.Single.FracBits[0]
	fmt.Fprintf(w, "smallest single %s certified to agree on %s of the balls: %d (%d of %d)\n\n", width, percent(r.TargetAgreement), fb, r.Single.Agreed, r.Samples)
	if err := AllocationTable(r.Layers, r.SingleLayers).WriteText(w); err != nil {
		return err
	}
	fewer := 100 * float64(r.Single.Bits-r.TotalBits) / float64(r.Single.Bits)
	if r.Scheme != "" {
		fmt.Fprintf(w, "\nweight bits of a layer: weights x their bits + biases x 32 (int32), scales not counted\n")
	} else {
		fmt.Fprintf(w, "\nweight bits of a layer: (weights + biases) x (1 + IB + FB), a sign bit, IB integer bits, FB fractional bits each\n")
	}
	fmt.Fprintf(w, "total weight bits: %d per layer, %d at the single %s %d (%.1f%% fewer)\n", r.TotalBits, r.Single.Bits, width, fb, fewer)
	fmt.Fprintf(w, "certified agreement: %d of %d balls (%s); %d copies judged, %d steps taken down from %s %d\n",
		r.Agreed, r.Samples, percent(float64(r.Agreed)/float64(r.Samples)), r.Candidates, len(r.Steps), width, r.Start)
	if r.Saved != "" {
		fmt.Fprintf(w, "saved: %s (the copy chosen)\n", r.Saved)
	}
	return nil
}

// percent formats a rate as a percentage with one decimal.
func percent(rate float64) string { return fmt.Sprintf("%.1f %%", 100*rate) }

// Save saves the chosen copy to path (modelfile.Save) and records path
// in Saved. There must be a copy (Met).
func (r *AgreementResult) Save(path string) error { return saveChosen(r.Net, path, &r.Saved) }
