package search

import (
	"errors"
	"fmt"
	"time"
)

// ErrOptions reports invalid Options.
var ErrOptions = errors.New("invalid options")

// Options configures MaxError.
type Options struct {
	// Grid is the number of points per axis of the regular grid searched
	// when the search space (x1, or (x1, x2) for independent inputs) has at
	// most two dimensions; 0 means no grid, -1 (the default) 2001 points
	// for one dimension and 201 per axis for two.
	Grid int
	// Samples is the number of uniform random points (after the box
	// corners, up to MaxCorners of them).
	Samples int
	// MaxCorners caps the number of box corners tried.
	MaxCorners int
	// Restarts is the number of local searches, started from the best
	// points found so far.
	Restarts int
	// Iters is the number of iterations of each local search.
	Iters int
	// ZoomStarts, ZoomRounds and ZoomSamples: after the local searches,
	// from each of the ZoomStarts best points, ZoomRounds rounds of
	// ZoomSamples uniform points around the round's best, in a box of a
	// quarter of the search box's widths halved each round.
	ZoomStarts, ZoomRounds, ZoomSamples int
	// AnnealEvals is the length, in evaluations, of the annealing phase
	// that follows the local searches when a network has quantisers and
	// the pairing is SameInput: a walk on the grid of its input from the
	// best point found (see anneal.go); 0 disables it. Under MaxEvals the
	// phases before it leave it min(AnnealEvals, MaxEvals/2) at least.
	AnnealEvals int
	// Seed makes the random choices; the same seed gives the same result.
	Seed uint64
	// TimeLimit stops the search when exceeded (0: no limit); the best point
	// so far is returned.
	TimeLimit time.Duration
	// PatternCoords caps the work of each coordinate pattern search that
	// follows a local search: at most 2 Iters PatternCoords evaluations, so
	// that its cost does not grow with the dimension (a sweep moves every
	// coordinate both ways: 2 Iters d evaluations would be over 100,000 at
	// 561 inputs). 0 means no cap; with d <= PatternCoords it never binds.
	PatternCoords int
	// MaxEvals stops the search after this many evaluations of the
	// networks (0: no limit), the best point so far is returned: a budget
	// that, unlike TimeLimit, gives the same result on any machine. The
	// exact enumeration (Exact) is not counted against it.
	MaxEvals int
	// SignAscent makes each local search a projected sign-gradient
	// ascent (PGD on the box): a step moves every input by the step
	// times its width in the direction of its derivative's sign, and the
	// error there comes with the gradient there, one gradient an
	// iteration; no gradient-direction point and no pattern search. For
	// a budget of fewer evaluations than inputs (a CIFAR-size graph),
	// where coordinate moves and uniform points cannot cover the box.
	SignAscent bool
	// Exact enables the exact maximum for one input and piecewise-linear
	// networks (breakpoint enumeration).
	Exact bool
	// MaxPieces caps the linear pieces (and quantiser cells) the exact
	// method enumerates before giving up on exactness.
	MaxPieces int
}

// DefaultOptions returns the defaults: a 2001-point grid for one
// dimension (201 x 201 for two), 20000 random points, 8 local searches of
// 100 iterations, each followed by a pattern search of at most 6,400
// evaluations, an annealing phase of 40,000 evaluations for quantised
// networks, zooming around the 4 best points, exact enumeration on.
func DefaultOptions() Options {
	return Options{
		Grid:        -1, // chosen by dimension
		Samples:     20000,
		MaxCorners:  1024,
		Restarts:    8,
		Iters:       100,
		ZoomStarts:  4,
		ZoomRounds:  12,
		ZoomSamples: 200,
		AnnealEvals: 40000,
		Seed:        1,
		Exact:       true,
		MaxPieces:   200000,
		// 32 coordinates' worth of pattern search per local search.
		PatternCoords: 32,
	}
}

// gridSize returns the grid points per axis for a search space of dim
// dimensions.
func (o Options) gridSize(dim int) int {
	if dim > 2 {
		return 0
	}
	if o.Grid >= 0 {
		return o.Grid
	}
	if dim == 1 {
		return 2001
	}
	return 201
}

// Validate names the first invalid field.
func (o Options) Validate() error {
	switch {
	case o.Grid < -1:
		return fmt.Errorf("search: options: Grid %d is negative: %w", o.Grid, ErrOptions)
	case o.Samples < 0:
		return fmt.Errorf("search: options: Samples %d is negative: %w", o.Samples, ErrOptions)
	case o.MaxCorners < 0:
		return fmt.Errorf("search: options: MaxCorners %d is negative: %w", o.MaxCorners, ErrOptions)
	case o.Restarts < 0:
		return fmt.Errorf("search: options: Restarts %d is negative: %w", o.Restarts, ErrOptions)
	case o.Iters < 0:
		return fmt.Errorf("search: options: Iters %d is negative: %w", o.Iters, ErrOptions)
	case o.ZoomStarts < 0 || o.ZoomRounds < 0 || o.ZoomSamples < 0:
		return fmt.Errorf("search: options: ZoomStarts %d, ZoomRounds %d or ZoomSamples %d is negative: %w",
			o.ZoomStarts, o.ZoomRounds, o.ZoomSamples, ErrOptions)
	case o.AnnealEvals < 0:
		return fmt.Errorf("search: options: AnnealEvals %d is negative: %w", o.AnnealEvals, ErrOptions)
	case o.TimeLimit < 0:
		return fmt.Errorf("search: options: TimeLimit %v is negative: %w", o.TimeLimit, ErrOptions)
	case o.PatternCoords < 0:
		return fmt.Errorf("search: options: PatternCoords %d is negative: %w", o.PatternCoords, ErrOptions)
	case o.MaxEvals < 0:
		return fmt.Errorf("search: options: MaxEvals %d is negative: %w", o.MaxEvals, ErrOptions)
	case o.MaxPieces < 0:
		return fmt.Errorf("search: options: MaxPieces %d is negative: %w", o.MaxPieces, ErrOptions)
	}
	return nil
}
