package experiment

import (
	"context"
	"io"
	"math"
	"slices"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/progress"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// The paper's experiments (Li, Drummond, Duncan, L4DC 2021, Section 5 and
// Appendix 7) on random networks drawn as the authors drew them: one input,
// one output, hidden layers of Width ReLU neurons, standard normal weights
// and biases, input box [-1, 1] (PaperBox).
const (
	// Width is the number of neurons of each hidden layer.
	Width = 10
	// Grid is the number of evenly spaced inputs per axis for T.
	Grid = 100
	// PaperFracBits is the fractional bits of Table 2's quantiser.
	PaperFracBits = 2
)

// PaperBox returns the input box of the paper's experiments, [-1, 1].
func PaperBox() spec.Box { return spec.Box{Lo: []float64{-1}, Hi: []float64{1}} }

// Paper names an experiment of the paper.
type Paper int

// The experiments.
const (
	Table1 Paper = iota // similarity: self-compare, x1, x2 independent
	Table2              // FB = 2 quantised copy, quantised input
	Sweep               // worst case against FB = 1..5, l = 2
	Prune               // 8 smallest hidden neurons pruned, l = 2
)

var (
	paperNames  = [...]string{"table1", "table2", "sweep", "prune"}
	paperTitles = [...]string{"Table 1", "Table 2", "Worst-case sweep", "Pruning"}
)

// String returns the name of e: table1, table2, sweep or prune.
func (e Paper) String() string { return paperNames[e] }

// Title returns the title of e: "Table 1", "Table 2", "Worst-case sweep"
// or "Pruning".
func (e Paper) Title() string { return paperTitles[e] }

// ParsePaper returns the experiment named name (see Paper.String).
func ParsePaper(name string) (Paper, bool) {
	i := slices.Index(paperNames[:], name)
	return Paper(i), i >= 0
}

// Task is one certification of an experiment.
type Task struct {
	Layers   int // hidden layers
	FracBits int // sweep: the FB of the copy
	Run      int
}

// Tasks returns the certifications of an experiment, grouped by depth
// (or FB) in order: runs at each of layers for the tables, runs at l = 2
// for each FB = 1..5 for the sweep, and runs at l = 2 for pruning.
func Tasks(e Paper, layers []int, runs int) []Task {
	var tasks []Task
	switch e {
	case Sweep:
		for fb := 1; fb <= 5; fb++ {
			for r := range runs {
				tasks = append(tasks, Task{Layers: 2, FracBits: fb, Run: r})
			}
		}
	case Prune:
		for r := range runs {
			tasks = append(tasks, Task{Layers: 2, Run: r})
		}
	default:
		for _, l := range layers {
			for r := range runs {
				tasks = append(tasks, Task{Layers: l, Run: r})
			}
		}
	}
	return tasks
}

// NetSeed is the seed of the network of run r at depth l: the same
// networks are used by every experiment, so that Table 1 and Table 2 rows
// describe the same networks.
func NetSeed(seed uint64, l, r int) uint64 { return seed + uint64(1000*l+r) }

// Run is the record of one certification.
type Run struct {
	Layers   int    `json:"layers"`
	FracBits int    `json:"frac_bits,omitempty"`
	Run      int    `json:"run"`
	NetSeed  uint64 `json:"net_seed"`
	Summary
	TMean   report.Number `json:"t_mean"`
	TMax    report.Number `json:"t_max"`
	TMin    report.Number `json:"t_min"`
	Seconds float64       `json:"seconds"`
}

// Row aggregates the runs of one depth (or one FB).
type Row struct {
	Layers    int           `json:"layers"`
	FracBits  int           `json:"frac_bits,omitempty"`
	Certified int           `json:"certified"`
	Runs      int           `json:"runs"`
	GammaX    report.Number `json:"gamma_x"`
	GammaX1   report.Number `json:"gamma_x1"`
	GammaX2   report.Number `json:"gamma_x2"`
	Gamma     report.Number `json:"gamma"`
	TMean     report.Number `json:"t_mean"`
	TMax      report.Number `json:"t_max"`
	TMin      report.Number `json:"t_min"`
	Seconds   float64       `json:"seconds"`
	Bound     report.Number `json:"bound"`
	Observed  report.Number `json:"observed_error"`
	Ratio     report.Number `json:"ratio_median"`
}

// Setup holds what the runs of an experiment share.
type Setup struct {
	Exp  Paper
	Seed uint64 // S: run r at depth l uses the network of seed NetSeed(S, l, r)
	// TwoNets makes Table 1 compare two independent networks instead of
	// each network with itself.
	TwoNets bool
	// Opts are the certification options; Instance sets their pairing and
	// input quantiser.
	Opts certjob.Job
}

// Mode describes the instances of the experiment.
func (s *Setup) Mode() string {
	switch s.Exp {
	case Table1:
		if s.TwoNets {
			return "two independent networks, x1 and x2 independent in [-1, 1]"
		}
		return "each network against itself, x1 and x2 independent in [-1, 1] (self-compare)"
	case Table2:
		return "each network against its FB = 2 copy, x2 = q(x1), x1 in [-1, 1]"
	case Sweep:
		return "l = 2 networks against their FB = 1..5 copies, x2 = q(x1), x1 in [-1, 1]"
	}
	return "l = 2 networks with the 8 smallest hidden neurons zeroed, x2 = x1 in [-1, 1]"
}

// PaperPair returns the paper's random network (randnet.Paper: one input,
// layers hidden layers of width ReLU neurons, one output, drawn from
// seed) and its copy with weights and biases quantised to fb fractional
// bits (trunc), the pair of Table 2 and of nnbound demo.
func PaperPair(seed uint64, layers, width, fb int) (f1, f2 *nn.Network, err error) {
	f1 = randnet.Paper(seed, 1, layers, width, 1)
	q := quantise.Format{FracBits: fb}
	f2, err = quantise.Network(f1, quantise.Options{Weights: q, Biases: q})
	return f1, f2, err
}

// Instance returns the networks and options of a task.
func (s *Setup) Instance(t Task) (f1, f2 *nn.Network, o certjob.Job, err error) {
	seed := NetSeed(s.Seed, t.Layers, t.Run)
	f1 = randnet.Paper(seed, 1, t.Layers, Width, 1)
	o = s.Opts
	switch s.Exp {
	case Table1:
		o.Pairing = spec.Independent
		f2 = f1
		if s.TwoNets {
			f2 = randnet.Paper(seed+500000, 1, t.Layers, Width, 1)
		}
	case Table2, Sweep:
		fb := PaperFracBits
		if s.Exp == Sweep {
			fb = t.FracBits
		}
		o.Pairing, o.Quant = spec.QuantisedInput, quantise.Format{FracBits: fb}
		f1, f2, err = PaperPair(seed, t.Layers, Width, fb)
	case Prune:
		o.Pairing = spec.SameInput
		f2, _, err = prune.Neurons(f1, prune.DefaultNeuronOptions())
	}
	return f1, f2, o, err
}

// CertifyAll certifies the tasks, jobs at a time, showing progress on
// stderr, and returns their records and certificates in task order.
func (s *Setup) CertifyAll(ctx context.Context, tasks []Task, jobs int, stderr io.Writer) ([]Run, []*certify.Certificate, error) {
	runs := make([]Run, len(tasks))
	certs := make([]*certify.Certificate, len(tasks))
	bar := progress.New(stderr, "paper "+s.Exp.String(), len(tasks))
	defer bar.Done()
	err := Parallel(ctx, len(tasks), jobs, func(ctx context.Context, i int) error {
		r, c, err := s.Certify(ctx, tasks[i])
		if err != nil {
			return err
		}
		runs[i], certs[i] = r, c
		bar.Add(1)
		return nil
	})
	return runs, certs, err
}

// Finished returns the runs of CertifyAll that finished: those with a
// certificate that was not cancelled (after a signal stopped the others).
func Finished(runs []Run, certs []*certify.Certificate) []Run {
	var done []Run
	for i, c := range certs {
		if c != nil && c.Status != certify.Cancelled {
			done = append(done, runs[i])
		}
	}
	return done
}

// Certify certifies one task over PaperBox and measures the tightness T
// over the paper's evaluation grid (Tightness).
func (s *Setup) Certify(ctx context.Context, t Task) (Run, *certify.Certificate, error) {
	f1, f2, o, err := s.Instance(t)
	if err != nil {
		return Run{}, nil, err
	}
	box := PaperBox()
	c, err := o.Bound(ctx, f1, f2, box)
	if err != nil {
		return Run{}, nil, err
	}
	r := Run{Layers: t.Layers, FracBits: t.FracBits, Run: t.Run, NetSeed: NetSeed(s.Seed, t.Layers, t.Run),
		Summary: NewSummary(c), TMean: nan(), TMax: nan(), TMin: nan(), Seconds: c.Time.Seconds()}
	if !c.Certified() {
		return r, c, nil
	}
	mean, hi, lo, err := Tightness(f1, f2, box, o, c)
	if err != nil {
		return Run{}, nil, err
	}
	r.TMean, r.TMax, r.TMin = report.Number(mean), report.Number(hi), report.Number(lo)
	return r, c, nil
}

// Tightness returns the mean, largest and smallest of
//
//	T = ln(bound(x1, x2)^2) - ln(||f1(x1) - f2(x2)||^2)
//
// over the paper's grid: Grid evenly spaced x1 in the box (and as
// many x2 for independent inputs), leaving out pairs with zero error,
// where T is infinite. bound is the certified bound at the pair (see
// certify.Certificate.BoundAt). All NaN when no pair has a positive error.
func Tightness(f1, f2 *nn.Network, box spec.Box, o certjob.Job, c *certify.Certificate) (mean, hi, lo float64, err error) {
	in := spec.Inputs{Box: box, Pairing: o.Pairing, Quant: o.Quant}
	xs := Linspace(box.Lo[0], box.Hi[0], Grid)
	y1 := make([][]float64, len(xs))
	for i, x := range xs {
		if y1[i], err = f1.Eval([]float64{x}); err != nil {
			return 0, 0, 0, err
		}
	}
	hi, lo = math.Inf(-1), math.Inf(1)
	var sum float64
	n := 0
	add := func(x1, x2 []float64, a []float64) error {
		b, err := f2.Eval(x2)
		if err != nil {
			return err
		}
		t := report.Tightness(c.BoundAt(x1, x2), c.Measure(a, b))
		if !math.IsNaN(t) && !math.IsInf(t, 0) {
			sum, n = sum+t, n+1
			hi, lo = max(hi, t), min(lo, t)
		}
		return nil
	}
	for i, x := range xs {
		x1 := []float64{x}
		if o.Pairing != spec.Independent {
			if err := add(x1, in.X2(x1), y1[i]); err != nil {
				return 0, 0, 0, err
			}
			continue
		}
		for _, x2 := range xs {
			if err := add(x1, []float64{x2}, y1[i]); err != nil {
				return 0, 0, 0, err
			}
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), nil
	}
	return sum / float64(n), hi, lo, nil
}

// Aggregate averages the certified runs of each depth (or FB), given in
// the order of Tasks.
func Aggregate(e Paper, runs []Run) []Row {
	var rows []Row
	key := func(r Run) int {
		if e == Sweep {
			return r.FracBits
		}
		return r.Layers
	}
	for start := 0; start < len(runs); {
		end := start
		for end < len(runs) && key(runs[end]) == key(runs[start]) {
			end++
		}
		group := runs[start:end]
		row := Row{Layers: group[0].Layers, FracBits: group[0].FracBits, Runs: len(group)}
		var gx, gx1, gx2, g, tmean, tmax, tmin, bound, obs, ratios []float64
		for _, r := range group {
			row.Seconds += r.Seconds / float64(len(group))
			if !r.Certified {
				continue
			}
			row.Certified++
			gx, gx1, gx2, g = append(gx, float64(r.GammaX)), append(gx1, float64(r.GammaX1)), append(gx2, float64(r.GammaX2)), append(g, float64(r.Gamma))
			tmean, tmax, tmin = append(tmean, float64(r.TMean)), append(tmax, float64(r.TMax)), append(tmin, float64(r.TMin))
			bound, obs, ratios = append(bound, float64(r.Bound)), append(obs, float64(r.ObservedError)), append(ratios, float64(r.Ratio))
		}
		row.GammaX, row.GammaX1, row.GammaX2, row.Gamma = mean(gx), mean(gx1), mean(gx2), mean(g)
		row.TMean, row.TMax, row.TMin = mean(tmean), mean(tmax), mean(tmin)
		row.Bound, row.Observed, row.Ratio = mean(bound), mean(obs), median(ratios)
		rows = append(rows, row)
		start = end
	}
	return rows
}

// mean returns the mean of the finite values of v (NaN if none).
func mean(v []float64) report.Number {
	var s float64
	n := 0
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s, n = s+x, n+1
		}
	}
	if n == 0 {
		return nan()
	}
	return report.Number(s / float64(n))
}

// median returns the median of the finite values of v (NaN if none).
func median(v []float64) report.Number {
	w := slices.DeleteFunc(slices.Clone(v), func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
	if len(w) == 0 {
		return nan()
	}
	slices.Sort(w)
	if len(w)%2 == 1 {
		return report.Number(w[len(w)/2])
	}
	return report.Number((w[len(w)/2-1] + w[len(w)/2]) / 2)
}
