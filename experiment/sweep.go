package experiment

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/progress"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// WidthSweep certifies a network against its copies pruned at each of Levels
// and quantised to each of Widths fractional bits.
type WidthSweep struct {
	Widths   []int
	Levels   []PruneLevel
	Rounding quantise.Rounding
	// Opts are the certification options; Run sets Quant per width.
	Opts certjob.Job
	// Jobs is the number of copies certified at once.
	Jobs int
}

// Run certifies f1 against the copy that copyOf builds for each level and
// input format (every level at every width, in that order) over box,
// showing progress on stderr, and returns a row per copy.
func (s *WidthSweep) Run(ctx context.Context, f1 *nn.Network, box spec.Box,
	copyOf func(PruneLevel, quantise.Format) (*nn.Network, error), stderr io.Writer) ([]SweepRow, error) {
	return s.run(ctx, stderr, func(ctx context.Context, l PruneLevel, o certjob.Job) (*certify.Certificate, error) {
		f2, err := copyOf(l, o.Quant)
		if err != nil {
			return nil, err
		}
		return o.Bound(ctx, f1, f2, box)
	})
}

// run certifies every level at every width (bound certifies one, given
// the options with Quant set to the width), Jobs at once, showing
// progress on stderr, and returns a row per copy.
func (s *WidthSweep) run(ctx context.Context, stderr io.Writer,
	bound func(context.Context, PruneLevel, certjob.Job) (*certify.Certificate, error)) ([]SweepRow, error) {
	type task struct{ level, fb int }
	var tasks []task
	for li := range s.Levels {
		for _, fb := range s.Widths {
			tasks = append(tasks, task{li, fb})
		}
	}
	rows := make([]SweepRow, len(tasks))
	bar := progress.New(stderr, "sweep", len(tasks))
	defer bar.Done()
	err := Parallel(ctx, len(tasks), max(s.Jobs, 1), func(ctx context.Context, i int) error {
		t := tasks[i]
		o := s.Opts
		o.Quant = quantise.Format{FracBits: t.fb, Rounding: s.Rounding}
		c, err := bound(ctx, s.Levels[t.level], o)
		if err != nil {
			return err
		}
		rows[i] = newSweepRow(s.Levels[t.level].String(), t.level, t.fb, c)
		bar.Add(1)
		return nil
	})
	return rows, err
}

// newSweepRow returns the row of the certificate c of width fb at the
// pruning level numbered level and named prune.
func newSweepRow(prune string, level, fb int, c *certify.Certificate) SweepRow {
	r := SweepRow{Prune: prune, FracBits: fb, Summary: NewSummary(c), Seconds: c.Time.Seconds(), Level: level,
		TimeBudgetHit: c.TimeBudgetHit, Interrupted: c.Stopped == certify.StopCancelled}
	if c.IsTrivial() {
		r.Trivial = c.Trivial
	}
	return r
}

// FinishedRows returns the rows of Run that finished: those certified
// or not, but neither left undone nor cancelled by a signal.
func FinishedRows(rows []SweepRow) []SweepRow {
	return slices.DeleteFunc(rows, func(r SweepRow) bool {
		return r.Status == "" || r.Status == certify.Cancelled.String()
	})
}

// TrivialNote says at which widths the certified bound is the trivial
// one of the output activations' ranges ("" if none).
func TrivialNote(rows []SweepRow) string {
	var fbs []string
	value := 0.0
	for _, r := range rows {
		if r.Trivial > 0 {
			fbs, value = append(fbs, fmt.Sprint(r.FracBits)), r.Trivial
		}
	}
	if len(fbs) == 0 {
		return ""
	}
	return fmt.Sprintf("note: at FB %s the bound is the trivial %s that the ranges of the output activations give alone",
		strings.Join(fbs, ", "), report.Up(value, 4))
}

// BudgetNote says which rows the time budget stopped short (the SDPs of
// a chain, the input splitting of a graph; "" if none): their bounds hold
// but depend on the machine's speed.
func BudgetNote(rows []SweepRow) string {
	fbs := widthsWhere(rows, func(r SweepRow) bool { return r.TimeBudgetHit })
	if len(fbs) == 0 {
		return ""
	}
	return fmt.Sprintf("note: the time budget stopped the certification at FB %s (bounds hold, but may be looser; --timeout 0 for none)",
		strings.Join(fbs, ", "))
}

// InterruptNote returns the note on the rows a signal cut short
// (SweepRow.Interrupted), "" for none.
func InterruptNote(rows []SweepRow) string {
	fbs := widthsWhere(rows, func(r SweepRow) bool { return r.Interrupted })
	if len(fbs) == 0 {
		return ""
	}
	return fmt.Sprintf("note: a signal cut short the refinement at FB %s (bounds hold, but may be looser)", strings.Join(fbs, ", "))
}

// widthsWhere returns the fractional bits of the rows for which keep is
// true, as text, in row order.
func widthsWhere(rows []SweepRow, keep func(SweepRow) bool) []string {
	var fbs []string
	for _, r := range rows {
		if keep(r) {
			fbs = append(fbs, fmt.Sprint(r.FracBits))
		}
	}
	return fbs
}

// CopyScheme says how the copies of a width sweep are made: fixed point
// (rounding every hidden layer's output too when ActFracBits > 0) or, with
// Int8, quantise.Int8 with Int8Opts at Bits = the width, calibrated on the
// input box by bound propagation.
type CopyScheme struct {
	ActFracBits int
	Int8        bool
	Int8Opts    quantise.Int8Options
}

// Compress returns the compression of a core network at level l and
// width q (q.FracBits is the int8 scheme's bits) over box.
func (s CopyScheme) Compress(l PruneLevel, q quantise.Format, box spec.Box) func(core *nn.Network) (*nn.Network, error) {
	if !s.Int8 && s.ActFracBits == 0 {
		return l.Compress(q)
	}
	return func(core *nn.Network) (*nn.Network, error) {
		pruned, err := l.Apply(core)
		if err != nil {
			return nil, err
		}
		if !s.Int8 {
			return quantise.Network(pruned, quantise.Options{Weights: q, Biases: q, ActFracBits: s.ActFracBits})
		}
		r, err := Calibrate(pruned, nil, box)
		if err != nil {
			return nil, err
		}
		o8 := s.Int8Opts
		o8.Bits = q.FracBits
		return quantise.Int8(pruned, r, o8)
	}
}

// Calibrate returns the ranges of core's input and pre-activations that
// quantise.Int8 calibrates on: those seen on the sample inputs xs
// (quantise.SampleRanges) or, for none, bounds on the whole box by bound
// propagation (bounds.Calibrate), so that no input of the box saturates.
func Calibrate(core *nn.Network, xs [][]float64, box spec.Box) (quantise.Ranges, error) {
	if xs != nil {
		return quantise.SampleRanges(core, xs)
	}
	return bounds.Calibrate(core, box, bounds.DefaultOptions())
}

// Compress returns the compression of level l at input format q: prune
// a core network, then quantise its weights and biases to q.
func (l PruneLevel) Compress(q quantise.Format) func(core *nn.Network) (*nn.Network, error) {
	return func(core *nn.Network) (*nn.Network, error) {
		pruned, err := l.Apply(core)
		if err != nil {
			return nil, err
		}
		return quantise.Network(pruned, quantise.Options{Weights: q, Biases: q})
	}
}

// SweepResult is what "nnbound sweep" prints (its --json output): the
// rows of a WidthSweep, and the smallest widths meeting a target.
type SweepResult struct {
	Model       string        `json:"model"`
	Input       InputRecord   `json:"input"`
	QC          string        `json:"qc"`
	TargetError report.Number `json:"target_error"`
	Rows        []SweepRow    `json:"rows"`
	Smallest    []SweepChoice `json:"smallest,omitempty"`
	Plot        string        `json:"plot,omitempty"`
	// Saved is the file of the copy saved (sweep --save-best), if any.
	Saved string `json:"saved,omitempty"`
	// Status is "cancelled after N of M rows" when a signal stopped the
	// sweep (Rows are those finished), else empty.
	Status string `json:"status,omitempty"`
}

// SweepRow is one certified bit width of a sweep.
type SweepRow struct {
	Prune    string `json:"prune"`
	FracBits int    `json:"frac_bits"`
	Summary
	Seconds float64 `json:"seconds"`
	// TimeBudgetHit reports that the time budget stopped this row's SDPs
	// (certify.Certificate.TimeBudgetHit); absent otherwise.
	TimeBudgetHit bool `json:"time_budget_hit,omitempty"`
	// Interrupted reports that a signal cut this row's refinement short
	// (certify.StopCancelled): its bound holds but may be looser; absent
	// otherwise.
	Interrupted bool `json:"interrupted,omitempty"`
	// Level is the index of the pruning level in WidthSweep.Levels.
	Level int `json:"-"`
	// Trivial is the bound the ranges of the output activations give
	// alone when the certified bound is no better
	// (certify.Certificate.IsTrivial), else 0.
	Trivial float64 `json:"-"`
}

// SweepChoice is the smallest width of one pruning level whose certified
// bound meets a target (SmallestWidths).
type SweepChoice struct {
	Prune string `json:"prune"`
	// FracBits is the smallest width meeting the target, 0 if none does.
	FracBits int           `json:"frac_bits"`
	Bound    report.Number `json:"bound"`
}

// PruneLevel is one pruning level of a sweep: Neurons neurons, a
// fraction Sparsity of the weights, or nothing when both are zero.
type PruneLevel struct {
	Neurons  int
	Sparsity float64
}

// PruneLevels returns a level for each neuron count of neurons and each
// fraction of sparsities, in that order, or the single level "none" when
// both are empty.
func PruneLevels(neurons []int, sparsities []float64) []PruneLevel {
	var levels []PruneLevel
	for _, k := range neurons {
		levels = append(levels, PruneLevel{Neurons: k})
	}
	for _, s := range sparsities {
		levels = append(levels, PruneLevel{Sparsity: s})
	}
	if levels == nil {
		levels = []PruneLevel{{}}
	}
	return levels
}

// String names the level as the sweep table shows it: "4 neurons",
// "50% of weights" or "none".
func (l PruneLevel) String() string {
	switch {
	case l.Neurons > 0:
		return fmt.Sprintf("%d neurons", l.Neurons)
	case l.Sparsity > 0:
		return fmt.Sprintf("%g%% of weights", 100*l.Sparsity)
	}
	return "none"
}

// Apply returns the pruned copy of core (core itself at level none).
func (l PruneLevel) Apply(core *nn.Network) (*nn.Network, error) {
	if c, ok := l.compression(); ok {
		return c.Apply(core)
	}
	return core, nil
}

// ApplyGraph returns the pruned copy of graph g (g itself at level none).
func (l PruneLevel) ApplyGraph(g *nn.Graph) (*nn.Graph, error) {
	if c, ok := l.compression(); ok {
		return c.ApplyGraph(g)
	}
	return g, nil
}

// compression returns the pruning of level l with the default options
// (PruneNeurons or PruneWeights); ok is false at level none.
func (l PruneLevel) compression() (c Compression, ok bool) {
	switch {
	case l.Neurons > 0:
		o := prune.DefaultNeuronOptions()
		o.Count = l.Neurons
		return PruneNeurons(o), true
	case l.Sparsity > 0:
		o := prune.DefaultWeightOptions()
		o.Sparsity = l.Sparsity
		return PruneWeights(o), true
	}
	return Compression{}, false
}

// SmallestWidths returns, for each level, the smallest FB whose certified
// bound is at most target.
func SmallestWidths(rows []SweepRow, levels []PruneLevel, target float64) []SweepChoice {
	out := make([]SweepChoice, len(levels))
	for li, l := range levels {
		out[li] = SweepChoice{Prune: l.String(), Bound: nan()}
		for _, r := range rows {
			if r.Level != li || !r.Certified || float64(r.Bound) > target {
				continue
			}
			if out[li].FracBits == 0 || r.FracBits < out[li].FracBits {
				out[li].FracBits, out[li].Bound = r.FracBits, r.Bound
			}
		}
	}
	return out
}
