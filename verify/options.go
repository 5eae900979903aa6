package verify

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrOptions reports invalid Options.
var ErrOptions = errors.New("invalid options")

// SplitRule chooses the coordinate of a node's box to halve.
type SplitRule int

const (
	// SplitGradient halves the coordinate of largest width times the
	// gradient of the difference at the attack's worst point and the
	// centre.
	SplitGradient SplitRule = iota
	// SplitInterval halves the coordinate of largest width times the
	// enclosure of both networks' gradients over the box from the node's
	// pre-activation bounds (ReluVal's smear).
	SplitInterval
	// SplitDifference halves the coordinate that most narrows the
	// enclosures of the difference's activations where f or g straddles 0,
	// weighted by the outputs' sensitivity to them (smear.Difference).
	SplitDifference
)

// String returns the rule's name.
func (r SplitRule) String() string {
	switch r {
	case SplitGradient:
		return "gradient"
	case SplitInterval:
		return "interval"
	case SplitDifference:
		return "difference"
	}
	return fmt.Sprintf("SplitRule(%d)", int(r))
}

// Heuristics are the ratios that steer Decide's search. Each is a factor
// of the tolerance (or a fraction of passes) at which the search changes
// how it spends its work; none changes what a verdict means, only how
// soon it comes. The defaults are DefaultOptions'; how they were chosen
// is in docs/tuning.md.
type Heuristics struct {
	// OptimiseRatio: a node whose symbolic bound is within this factor of
	// the tolerance is bounded again with optimised slopes (alpha-CROWN)
	// before it is split; 0 never.
	OptimiseRatio float64
	// EarlyStopRatio lets the optimised bound of a node stop as soon as it
	// settles the node (bounds.Options.Goal): before it optimises the
	// margins, and, where the parent's bound was within this factor of
	// the tolerance, also before it optimises the last two hidden layers.
	// An optimised bound is not always inside the symbolic one
	// (bounds.MethodOptimised), so the check before the last layers can
	// settle a node the whole pass would not, never the reverse. A node it
	// settles keeps a looser bound (below eps), so Result.Bound may be
	// higher. 0 never.
	EarlyStopRatio float64
	// ContinueRatio stops a node's optimised bound at its check before
	// the last layers (EarlyStopRatio) also where the bound there is
	// above this factor of eps: the last two hidden layers and the
	// output then keep their symbolic bounds (bounds.Goal.Hopeless).
	// 0 never.
	ContinueRatio float64
	// ContinueWinRate stops every node's optimised bound at that check,
	// whatever its bound, while fewer than this fraction of the passes
	// that went on past it so far settled their node; every 32nd node
	// goes on regardless (within ContinueRatio), to keep the record
	// current. 0 never.
	ContinueWinRate float64
	// AttackRatio: below the root, a node whose parent's attack found a
	// difference under this fraction of eps is attacked lightly, from
	// the parent's worst point and the centre with a quarter of the
	// steps. 0 never.
	AttackRatio float64
	// SearchRatio: when the root's attack finds a difference above this
	// fraction of eps but not above eps, search.MaxError searches the box
	// too; 0 always, above 1 never.
	SearchRatio float64
	// SuspectRatio: nodes whose parent's attack found a difference of at
	// least this fraction of eps are taken first, largest first, to find
	// violations early; the others best first by bound. Above 1 never.
	SuspectRatio float64
}

// Options tunes how Decide searches; what is asked (networks, box,
// tolerance) is passed to Decide itself.
type Options struct {
	// MaxNodes stops the search, with Unknown, after this many boxes are
	// bounded (0: no limit).
	MaxNodes int
	// Workers is the number of goroutines bounding nodes; the result does
	// not depend on it.
	Workers int
	// Heuristics are the search's tuning ratios.
	Heuristics
	// Batch is the number of nodes taken from the queue, best first, and
	// bounded together before their children are queued. The result
	// depends on Batch (not on Workers or scheduling); where the box
	// holds, only through the attacks' random starts, seeded by node
	// number. The workers wait for the batch's last node, so a larger
	// batch keeps the cores busier (docs/tuning.md).
	Batch int
	// Forward bounds each node first by forward propagation
	// (bounds.ForwardDiff, far cheaper than bounds.Pair) and skips
	// bounds.Pair when that settles the node. Only for inputs paired
	// x2 = x and networks of identity and ReLU layers without quantisers;
	// otherwise ignored. Off by default: it settles too few nodes to pay
	// (docs/tuning.md).
	Forward bool
	// UnstableOnly bounds nodes with bounds.Options.UnstableOnly:
	// back-substitution only for the neurons that straddle a kink.
	UnstableOnly bool
	// OptimiseIterations is the number of projected gradient steps of the
	// slope optimisation (bounds.OptimiseSettings.Iterations; 0: its
	// default).
	OptimiseIterations int
	// OptimiseStep is Adam's step size in the slope optimisation
	// (bounds.OptimiseSettings.Step; 0: its default, 0.2, chosen for 20
	// steps; with verify's 5 steps a larger one saves nodes:
	// docs/tuning.md).
	OptimiseStep float64
	// AttackSteps is the number of sign-gradient steps of each attack;
	// AttackStarts the number of random starting points per node besides
	// the parent's worst point and the centre; RootStarts those of the
	// root.
	AttackSteps, AttackStarts, RootStarts int
	// RootWalk is the number of evaluations of each walk on the input
	// grid of an int8 g that the top-1 root attack runs after its ascents
	// (search.Walk, one for each of the first walkTargets classes g may
	// move to); 0: none.
	RootWalk int
	// RootLevels is the number of evaluations of g in each level search
	// of the top-1 root attack on an int8 g's input levels (top1levels.go,
	// one for each of the first walkTargets classes), run before the
	// walks; 0: none.
	RootLevels int
	// Split chooses the coordinate to halve; SplitDifference, the default,
	// takes the fewest nodes on the benchmarks (docs/tuning.md).
	Split SplitRule
	// MaxQueue is the number of open boxes DecideRelational keeps best
	// first; beyond it, it takes boxes depth first, which bounds the
	// queue's memory (frontier.go). 0: no limit.
	MaxQueue int
	// Seed makes the attacks' random starting points.
	Seed uint64
	// Progress, if not nil, is called after each batch of nodes, from the
	// goroutine running Decide.
	Progress func(Progress)
}

// DefaultOptions returns the defaults: no node limit, one worker per CPU,
// batches of 64 nodes, no forward bound first, optimised slopes within a
// factor 8 of the tolerance, checked for an early stop before the last
// layers where the parent's bound was within a factor 8, and stopped there
// unless settled or within a factor 1.5, or while under a quarter of the
// passes that went on settled their node,
// back-substitution of unstable neurons only, 5 slope-optimisation steps
// of size 0.5,
// top-1 root attacks that end with level searches of 2,000 evaluations
// and walks of 4,000 on an int8 g's input grid, light attacks below the root where the parent's attack found under half
// of eps, search.MaxError at the root when its attack comes within half of
// eps,
// suspect nodes (an attack within 0.9 of eps) first, the difference
// smear to choose the coordinate to split, at most 65536 relational
// boxes best first.
func DefaultOptions() Options {
	return Options{Workers: runtime.GOMAXPROCS(0), Batch: 64, UnstableOnly: true, OptimiseIterations: 5, OptimiseStep: 0.5,
		AttackSteps: 20, AttackStarts: 1, RootStarts: 32, RootWalk: 4000, RootLevels: 2000, Split: SplitDifference, MaxQueue: 1 << 16, Seed: 1,
		Heuristics: Heuristics{OptimiseRatio: 8, EarlyStopRatio: 8, ContinueRatio: 1.5, ContinueWinRate: 0.25,
			AttackRatio: 0.5, SearchRatio: 0.5, SuspectRatio: 0.9}}
}

// Validate names the first invalid field.
func (o Options) Validate() error {
	switch {
	case o.MaxNodes < 0:
		return fmt.Errorf("verify: options: MaxNodes %d is negative: %w", o.MaxNodes, ErrOptions)
	case o.MaxQueue < 0:
		return fmt.Errorf("verify: options: MaxQueue %d is negative: %w", o.MaxQueue, ErrOptions)
	case o.Workers < 1:
		return fmt.Errorf("verify: options: Workers %d, want at least 1: %w", o.Workers, ErrOptions)
	case o.Batch < 1:
		return fmt.Errorf("verify: options: Batch %d, want at least 1: %w", o.Batch, ErrOptions)
	case !(o.SuspectRatio > 0):
		return fmt.Errorf("verify: options: SuspectRatio %v, want > 0: %w", o.SuspectRatio, ErrOptions)
	case !(o.AttackRatio >= 0):
		return fmt.Errorf("verify: options: AttackRatio %v, want >= 0: %w", o.AttackRatio, ErrOptions)
	case !(o.SearchRatio >= 0):
		return fmt.Errorf("verify: options: SearchRatio %v, want >= 0: %w", o.SearchRatio, ErrOptions)
	case o.Split < SplitGradient || o.Split > SplitDifference:
		return fmt.Errorf("verify: options: Split %v unknown: %w", o.Split, ErrOptions)
	case !(o.OptimiseRatio >= 0):
		return fmt.Errorf("verify: options: OptimiseRatio %v, want >= 0: %w", o.OptimiseRatio, ErrOptions)
	case !(o.EarlyStopRatio >= 0):
		return fmt.Errorf("verify: options: EarlyStopRatio %v, want >= 0: %w", o.EarlyStopRatio, ErrOptions)
	case !(o.ContinueRatio >= 0):
		return fmt.Errorf("verify: options: ContinueRatio %v, want >= 0: %w", o.ContinueRatio, ErrOptions)
	case !(o.ContinueWinRate >= 0 && o.ContinueWinRate <= 1):
		return fmt.Errorf("verify: options: ContinueWinRate %v, want 0..1: %w", o.ContinueWinRate, ErrOptions)
	case o.OptimiseIterations < 0 || o.OptimiseIterations > 10000:
		return fmt.Errorf("verify: options: OptimiseIterations %d, want 0..10000: %w", o.OptimiseIterations, ErrOptions)
	case !(o.OptimiseStep >= 0 && o.OptimiseStep <= 10):
		return fmt.Errorf("verify: options: OptimiseStep %v, want 0..10: %w", o.OptimiseStep, ErrOptions)
	case o.RootWalk < 0:
		return fmt.Errorf("verify: options: RootWalk %d is negative: %w", o.RootWalk, ErrOptions)
	case o.RootLevels < 0:
		return fmt.Errorf("verify: options: RootLevels %d is negative: %w", o.RootLevels, ErrOptions)
	case o.AttackSteps < 0 || o.AttackStarts < 0 || o.RootStarts < 0:
		return fmt.Errorf("verify: options: AttackSteps %d, AttackStarts %d or RootStarts %d is negative: %w",
			o.AttackSteps, o.AttackStarts, o.RootStarts, ErrOptions)
	}
	return nil
}
