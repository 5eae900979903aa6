package report

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
	setLog(&p.Y, lo, hi)
	p.X.Min, p.X.Max = xmin-0.3, xmax+0.3
	if xmax-xmin <= 20 && isIntegers(s.Series) {
		p.X.Tick.Marker = intTicks{}
	}
	ch := newChart(p)
	p.Add(grid{x: true, y: true})
	for k, se := range s.Series {
		col := series[(2*k)%len(series)]
		ecol := series[(2*k+1)%len(series)]
		name := se.Name
		if name != "" {
			name += ": "
		}
		if err := addPoints(ch, se.X, se.Bound, draw.LineStyle{Color: col, Width: vg.Points(1.5)}, draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}, name+"certified bound"); err != nil {
			return nil, err
		}
		var failed plotter.XYs
		for i, b := range se.Bound {
			if !(b > 0) || math.IsInf(b, 0) {
				failed = append(failed, plotter.XY{X: se.X[i], Y: hi / 1.25})
			}
		}
		if len(failed) > 0 {
			sc, err := plotter.NewScatter(failed)
			if err != nil {
				return nil, fmt.Errorf("report: sweep: %w", err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: draw.CrossGlyph{}}
			ch.p.Add(sc)
			ch.key(name+"not certified", sc)
		}
		if err := addPoints(ch, se.X, se.Error, draw.LineStyle{Color: ecol, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}, draw.GlyphStyle{Color: ecol, Radius: vg.Points(2.5), Shape: draw.TriangleGlyph{}}, name+"observed error"); err != nil {
			return nil, err
		}
	}
	if s.Target > 0 {
		t := hrule{Y: s.Target, Style: draw.LineStyle{Color: colMark, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}}
		p.Add(t)
		ch.key("target "+Float(s.Target, 3), t)
	}
	if !math.IsNaN(s.Chosen) && s.Target > 0 {
		c := vrules{X: []float64{s.Chosen}, Style: draw.LineStyle{Color: colMark, Width: vg.Points(1)}}
		p.Add(c)
		ch.key("smallest meeting the target: "+Float(s.Chosen, 4)+" "+orDefault(s.XLabel, "fractional bits"), c)
	}
	return ch.figure(), nil
}

// addPoints adds the positive runs of (x, y) as lines with points.
func addPoints(ch *chart, x, y []float64, ls draw.LineStyle, gs draw.GlyphStyle, name string) error {
	for k, r := range positiveRuns(x, y) {
		xy := make(plotter.XYs, len(r[0]))
		for i := range xy {
			xy[i].X, xy[i].Y = r[0][i], r[1][i]
		}
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("report: %s: %w", name, err)
		}
		l.LineStyle, s.GlyphStyle = ls, gs
		ch.p.Add(l, s)
		if k == 0 {
			ch.key(name, l, s)
		}
	}
	return nil
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
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for v := math.Ceil(lo); v <= hi; v++ {
		t = append(t, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
	}
	return t
}
