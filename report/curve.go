package report

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Curve is the data of the one-input figure: the error and the bound
// against the input.
type Curve struct {
	Title  string // default "Certified bound and observed error"
	XLabel string // default "input x"
	YLabel string // default "||f1 - f2||"
	// X holds the inputs, in increasing order.
	X []float64
	// Error holds the observed error ||f1(x) - f2(x2)|| at each X.
	Error []float64
	// Bound optionally holds the certified bound at each X, such as
	//
	//	sqrt(gamma + gamma_x1 x1^2 + gamma_x2 x2^2 + gamma_x (x1 - x2)^2)
	//
	// or the smallest of several bounds that hold at X.
	Bound []float64
	// BoundName names Bound in the legend (default "certified bound at x").
	BoundName string
	// WorstCase, if positive, is the certified bound over the whole box,
	// drawn as a horizontal line.
	WorstCase float64
	// Steps holds the input quantisation steps to mark (the points where
	// the quantised input jumps); more than MaxSteps are not drawn.
	Steps []float64
}

// MaxSteps is the largest number of quantisation steps ErrorCurve marks;
// beyond it they would merge into a grey band.
const MaxSteps = 128

// ErrorCurve draws the error and bound curves of c on a log scale, with
// the quantisation steps as thin vertical lines.
func ErrorCurve(c Curve) (*Figure, error) {
	n := len(c.X)
	if n < 2 {
		return nil, fmt.Errorf("report: error curve needs at least 2 inputs, got %d: %w", n, ErrData)
	}
	if len(c.Error) != n || (c.Bound != nil && len(c.Bound) != n) {
		return nil, fmt.Errorf("report: error curve has %d inputs, %d errors and %d bounds: %w", n, len(c.Error), len(c.Bound), ErrData)
	}
	worst := []float64{}
	if c.WorstCase > 0 {
		worst = append(worst, c.WorstCase)
	}
	lo, hi, ok := logRange(6, c.Error, c.Bound, worst)
	if !ok {
		return nil, fmt.Errorf("report: error curve has no positive value to draw on a log scale: %w", ErrData)
	}
	p := newPlot(orDefault(c.Title, "Certified bound and observed error"), orDefault(c.XLabel, "input x"), orDefault(c.YLabel, "||f1 - f2||"))
	setLog(&p.Y, lo, hi)
	p.X.Min, p.X.Max = c.X[0], c.X[n-1]
	p.X.Tick.Marker = linTicks{}
	ch := newChart(p)
	p.Add(grid{x: true, y: true})
	if len(c.Steps) > 0 && len(c.Steps) <= MaxSteps {
		steps := vrules{X: c.Steps, Style: draw.LineStyle{Color: colSteps, Width: vg.Points(0.6), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}}
		p.Add(steps)
		ch.key(fmt.Sprintf("input quantisation steps (%d)", len(c.Steps)), steps)
	}
	if c.WorstCase > 0 {
		w := hrule{Y: c.WorstCase, Style: draw.LineStyle{Color: colWorst, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}}
		p.Add(w)
		ch.key("certified bound over the box ("+Float(c.WorstCase, 4)+")", w)
	}
	if c.Bound != nil {
		if err := addRuns(ch, c.X, c.Bound, draw.LineStyle{Color: colBound, Width: vg.Points(1.5)}, orDefault(c.BoundName, "certified bound at x")); err != nil {
			return nil, err
		}
	}
	if err := addRuns(ch, c.X, c.Error, draw.LineStyle{Color: colError, Width: vg.Points(1.2)}, "observed error"); err != nil {
		return nil, err
	}
	return ch.figure(), nil
}

// addRuns adds the positive runs of (x, y) as lines with one legend entry.
func addRuns(ch *chart, x, y []float64, style draw.LineStyle, name string) error {
	for k, r := range positiveRuns(x, y) {
		xy := make(plotter.XYs, len(r[0]))
		for i := range xy {
			xy[i].X, xy[i].Y = r[0][i], r[1][i]
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("report: %s: %w", name, err)
		}
		l.LineStyle = style
		ch.p.Add(l)
		if k == 0 {
			ch.key(name, l)
		}
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
