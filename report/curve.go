package report

import "fmt"

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
	p.y.setLog(lo, hi)
	p.x.min, p.x.max = c.X[0], c.X[n-1]
	ch := newChart(p)
	p.add(grid(true, true))
	if len(c.Steps) > 0 && len(c.Steps) <= MaxSteps {
		st := lineStyle{col: colSteps, width: 0.6, dashes: []float64{2, 2}}
		p.add(vrules(c.Steps, st))
		ch.key(fmt.Sprintf("input quantisation steps (%d)", len(c.Steps)), vruleKey(st))
	}
	if c.WorstCase > 0 {
		st := lineStyle{col: colWorst, width: 1.5, dashes: []float64{6, 3}}
		p.add(hrule(c.WorstCase, st))
		ch.key("certified bound over the box ("+Float(c.WorstCase, 4)+")", lineKey(st, nil))
	}
	if c.Bound != nil {
		addRuns(ch, c.X, c.Bound, lineStyle{col: colBound, width: 1.5}, nil, orDefault(c.BoundName, "certified bound at x"))
	}
	addRuns(ch, c.X, c.Error, lineStyle{col: colError, width: 1.2}, nil, "observed error")
	return ch.figure(), nil
}

// addRuns adds the positive runs of (x, y) as lines, with points drawn
// as g if g is not nil, and one legend entry.
func addRuns(ch *chart, x, y []float64, st lineStyle, g *glyph, name string) {
	for k, r := range positiveRuns(x, y) {
		ch.p.add(line(r[0], r[1], st))
		if g != nil {
			ch.p.add(scatter(r[0], r[1], *g))
		}
		if k == 0 {
			ch.key(name, lineKey(st, g))
		}
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
