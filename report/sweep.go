package report

import (
	"fmt"
	"math"
	"strconv"
)

// Sweep is the data of the sweep figure: for each compression level (such
// as the number of fractional bits), the certified bound and the observed
// error, in one or more series.
type Sweep struct {
	Title  string // default "Certified bound and observed error"
	XLabel string // default "fractional bits"
	Series []SweepSeries
	// Target, if positive, is an error target drawn as a horizontal line.
	Target float64
	// Chosen, if not NaN, is the level picked for the target, marked by
	// a vertical line. Use math.NaN() for none.
	Chosen float64
}

// SweepSeries is one curve pair of a sweep.
type SweepSeries struct {
	// Name prefixes the legend entries ("" for a single series).
	Name string
	// X holds the levels (for example 1, 2, ..., 12 fractional bits).
	X []float64
	// Bound and Error hold the certified bound and the observed error at
	// each level; NaN, infinite or non-positive values (not certified,
	// not computed) are skipped.
	Bound, Error []float64
}

// SweepFigure draws the bound (solid, with points) and the error (dashed)
// of each series against the level on a log scale.
func SweepFigure(s Sweep) (*Figure, error) {
	if len(s.Series) == 0 {
		return nil, fmt.Errorf("report: sweep has no series: %w", ErrData)
	}
	var all [][]float64
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, se := range s.Series {
		if len(se.Bound) != len(se.X) || len(se.Error) != len(se.X) {
			return nil, fmt.Errorf("report: sweep series %q has %d levels, %d bounds and %d errors: %w",
				se.Name, len(se.X), len(se.Bound), len(se.Error), ErrData)
		}
		all = append(all, se.Bound, se.Error)
		for _, x := range se.X {
			xmin, xmax = min(xmin, x), max(xmax, x)
		}
	}
	if s.Target > 0 {
		all = append(all, []float64{s.Target})
	}
	lo, hi, ok := logRange(12, all...)
	if !ok || math.IsInf(xmin, 0) {
		return nil, fmt.Errorf("report: sweep has no positive bound or error to draw: %w", ErrData)
	}
	p := newPlot(orDefault(s.Title, "Certified bound and observed error"), orDefault(s.XLabel, "fractional bits"), "worst-case ||f1 - f2||")
	p.y.setLog(lo, hi)
	p.x.min, p.x.max = xmin-0.3, xmax+0.3
	if xmax-xmin <= 20 && isIntegers(s.Series) {
		p.x.ticks = intTicks
	}
	ch := newChart(p)
	p.add(grid(true, true))
	for k, se := range s.Series {
		col := series[(2*k)%len(series)]
		ecol := series[(2*k+1)%len(series)]
		name := se.Name
		if name != "" {
			name += ": "
		}
		addRuns(ch, se.X, se.Bound, lineStyle{col: col, width: 1.5}, &glyph{circle, col, 2.5}, name+"certified bound")
		var failed []float64
		for i, b := range se.Bound {
			if !(b > 0) || math.IsInf(b, 0) {
				failed = append(failed, se.X[i])
			}
		}
		if len(failed) > 0 {
			g := glyph{cross, col, 3.5}
			p.add(scatter(failed, constant(len(failed), hi/1.25), g))
			ch.key(name+"not certified", glyphKey(g))
		}
		addRuns(ch, se.X, se.Error, lineStyle{col: ecol, width: 1.2, dashes: []float64{4, 2}}, &glyph{triangle, ecol, 2.5}, name+"observed error")
	}
	if s.Target > 0 {
		st := lineStyle{col: colMark, width: 1.2, dashes: []float64{6, 3}}
		p.add(hrule(s.Target, st))
		ch.key("target "+Float(s.Target, 3), lineKey(st, nil))
	}
	if !math.IsNaN(s.Chosen) && s.Target > 0 {
		st := lineStyle{col: colMark, width: 1}
		p.add(vrules([]float64{s.Chosen}, st))
		ch.key("smallest meeting the target: "+Float(s.Chosen, 4)+" "+orDefault(s.XLabel, "fractional bits"), vruleKey(st))
	}
	return ch.figure(), nil
}

// constant returns n copies of v.
func constant(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func isIntegers(ss []SweepSeries) bool {
	for _, s := range ss {
		for _, x := range s.X {
			if x != math.Trunc(x) {
				return false
			}
		}
	}
	return true
}

// intTicks labels every integer.
func intTicks(lo, hi float64) []tick {
	var t []tick
	for v := math.Ceil(lo); v <= hi; v++ {
		t = append(t, tick{v, strconv.Itoa(int(v))})
	}
	return t
}
