// Package align matches the hidden neurons of a compressed network g to
// those of the network f it was made from, and permutes g accordingly, so
// that a differential bound can pair neuron i of f with neuron i of g.
//
// Permuting the neurons of a hidden layer of g, its rows of W^k and b^k
// and the matching columns of W^{k+1}, leaves g's function unchanged in
// exact arithmetic: the activation of a layer is the same for all its
// neurons. Align chooses, layer by layer from the input, the permutation
// pi minimising
//
//	sum_i || [W_f^k[i,:], b_f^k[i]] - [W_g^k[pi(i),:], b_g^k[pi(i)]] ||_2^2,
//
// where the columns of W_g^k are already in f's order (the permutation of
// layer k-1 has been applied) and the inputs g does not use (zero columns
// of W_g^k, pruned neurons of layer k-1) are left out. The assignment is solved exactly
// (Hungarian method, O(n^3)). Dead neurons of g cost nothing wherever they
// go: a neuron is dead when its outgoing column in W^{k+1} is zero, or its
// row and bias are zero (a pruned neuron). The identity is kept whenever
// its cost is within a relative 1e-9 of the optimum.
//
// Layers of different widths: when g's layer is narrower than f's, g is
// padded with dead neurons (zero row, zero bias, zero outgoing column),
// which adds only exact zeros to the next layer's sums. When it is wider,
// as many of its dead neurons as needed are removed, those whose removal
// is exact (zero outgoing column, or zero row and bias under an activation
// with act(0) = 0); if there are not enough, that layer (and the next ones
// whose inputs then differ) are left as they are, and the report says why.
//
// Every result is checked: g and the aligned g are evaluated on random
// points of the input box and on its corners. When no neuron moved the
// sums are formed in the same order and the outputs must be equal; after a
// permutation the next layer sums in another order, so the outputs may
// differ by rounding, and must agree to a relative 1e-12 of the output's
// scale |y_i| + |b_i| + sum_j |w_ij h_j| (last layer). A failed check
// refuses the alignment: Align then returns g itself with the reason.
package align

import (
	"fmt"
	"math"
	"strings"

	"github.com/nnbound/nnbound/nn"
)

// Options configures the function check of Align.
type Options struct {
	// Lo and Hi bound the input box the check samples; nil means [-1, 1]
	// in every coordinate.
	Lo, Hi []float64
	// Samples is the number of random points of the box checked, besides
	// its centre and up to 64 of its corners.
	Samples int
	// Seed seeds the random points.
	Seed uint64
}

// DefaultOptions returns the default options: 256 samples of [-1, 1]^n,
// seed 1.
func DefaultOptions() Options { return Options{Samples: 256, Seed: 1} }

// LayerReport is the alignment of one hidden layer.
type LayerReport struct {
	Layer     int `json:"layer"`
	Matched   int `json:"matched"`   // positions holding a live neuron of g
	Unmatched int `json:"unmatched"` // positions of f holding a dead, padded or no neuron of g
	Moved     int `json:"moved"`     // neurons of g that changed position
	Dead      int `json:"dead"`      // dead neurons of g (before padding)
	Padded    int `json:"padded,omitempty"`
	Removed   int `json:"removed,omitempty"`
	// Cost and IdentityCost are the assignment's cost and that of
	// leaving the neurons where they were.
	Cost         float64 `json:"cost"`
	IdentityCost float64 `json:"identity_cost"`
	// Reason says why the layer was left unaligned, or is "".
	Reason string `json:"reason,omitempty"`
}

// Report is what Align did.
type Report struct {
	Layers []LayerReport `json:"aligned"`
	// Changed reports that the network returned differs from g.
	Changed bool `json:"changed"`
	// Exact reports that the check compared outputs for equality (no
	// neuron moved); otherwise it allowed rounding (see the package doc).
	Exact bool `json:"exact"`
	// Checked is the number of points the check evaluated; MaxDiff the
	// largest |g'(x)_i - g(x)_i| seen.
	Checked int     `json:"checked"`
	MaxDiff float64 `json:"max_diff"`
	// Refused gives the reason the alignment was refused, or is "".
	Refused string `json:"refused,omitempty"`
}

// String returns the report on one line:
//
//	aligned: {0: 16 matched, 0 unmatched, 12 moved; 1: ...}
func (r Report) String() string {
	parts := make([]string, len(r.Layers))
	for i, l := range r.Layers {
		s := fmt.Sprintf("%d: %d matched, %d unmatched, %d moved", l.Layer, l.Matched, l.Unmatched, l.Moved)
		if l.Padded > 0 {
			s += fmt.Sprintf(", %d padded", l.Padded)
		}
		if l.Removed > 0 {
			s += fmt.Sprintf(", %d removed", l.Removed)
		}
		if l.Reason != "" {
			s += " (unaligned: " + l.Reason + ")"
		}
		parts[i] = s
	}
	s := "aligned: {" + strings.Join(parts, "; ") + "}"
	if r.Refused != "" {
		s += " refused: " + r.Refused
	}
	return s
}

// Align returns g with its hidden neurons permuted to match those of f,
// and a report. g and f are not modified. It returns an error if either
// network is invalid or they differ in input or output size; networks of
// different depths, and alignments that fail the function check, are
// returned as g itself with Report.Refused saying why.
func Align(f, g *nn.Network, opts Options) (*nn.Network, Report, error) {
	if err := f.Validate(); err != nil {
		return nil, Report{}, fmt.Errorf("align: network f: %w", err)
	}
	if err := g.Validate(); err != nil {
		return nil, Report{}, fmt.Errorf("align: network g: %w", err)
	}
	for _, n := range []*nn.Network{f, g} {
		if err := n.RequireDense("alignment"); err != nil {
			return nil, Report{}, fmt.Errorf("align: %w", err)
		}
	}
	if f.InputSize() != g.InputSize() || f.OutputSize() != g.OutputSize() {
		return nil, Report{}, fmt.Errorf("align: f is %d -> %d but g is %d -> %d: %w",
			f.InputSize(), f.OutputSize(), g.InputSize(), g.OutputSize(), nn.ErrDimension)
	}
	if err := opts.validate(f.InputSize()); err != nil {
		return nil, Report{}, err
	}
	if len(f.Layers) != len(g.Layers) {
		return g, Report{Refused: fmt.Sprintf("f has %d layers and g %d: no layer-by-layer alignment", len(f.Layers), len(g.Layers))}, nil
	}
	h := g.Clone()
	var rep Report
	for k := range len(h.Layers) - 1 {
		l := alignLayer(f, h, k)
		rep.Layers = append(rep.Layers, l)
		rep.Changed = rep.Changed || l.Moved > 0 || l.Padded > 0 || l.Removed > 0
	}
	if !rep.Changed {
		return g, rep, nil
	}
	rep.Exact = true
	for _, l := range rep.Layers {
		rep.Exact = rep.Exact && l.Moved == 0
	}
	if err := check(g, h, opts, &rep); err != nil {
		rep.Refused, rep.Changed = err.Error(), false
		return g, rep, nil
	}
	return h, rep, nil
}

// validate checks the box of the function check against n inputs.
func (o Options) validate(n int) error {
	if o.Samples < 0 {
		return fmt.Errorf("align: options: Samples = %d, want >= 0", o.Samples)
	}
	if o.Lo == nil && o.Hi == nil {
		return nil
	}
	if len(o.Lo) != n || len(o.Hi) != n {
		return fmt.Errorf("align: options: box of %d and %d ends for %d inputs: %w", len(o.Lo), len(o.Hi), n, nn.ErrDimension)
	}
	for i := range o.Lo {
		if !(o.Lo[i] <= o.Hi[i]) || math.IsInf(o.Lo[i], 0) || math.IsInf(o.Hi[i], 0) {
			return fmt.Errorf("align: options: box coordinate %d is [%v, %v]", i, o.Lo[i], o.Hi[i])
		}
	}
	return nil
}
