package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Surface is the data of the two-input figure: the bound and the error on
// a grid of the input box.
type Surface struct {
	Title          string // default "Tightness of the certified bound"
	XLabel, YLabel string // default "input x1", "input x2"
	// X and Y are the grid coordinates of the first and second input, in
	// increasing order.
	X, Y []float64
	// Bound[i][j] and Error[i][j] are the certified bound and the
	// observed error at (X[j], Y[i]).
	Bound, Error [][]float64
}

// Tightness returns the tightness of a bound b over an error e,
//
//	T = ln(b^2) - ln(e^2) = 2 ln(b / e),
//
// which is 0 where the bound is attained; it is NaN where e or b is not
// positive.
func Tightness(b, e float64) float64 {
	if !(e > 0) || !(b > 0) {
		return math.NaN()
	}
	return 2 * math.Log(b/e)
}

// TightnessMap draws T = ln(bound^2) - ln(error^2) over the grid of s as a
// heat map, with a colour bar. Cells where the error is zero (T infinite)
// are drawn grey.
func TightnessMap(s Surface) (*Figure, error) {
	rows, cols := len(s.Y), len(s.X)
	if rows < 2 || cols < 2 {
		return nil, fmt.Errorf("report: tightness map needs a grid of at least 2 x 2, got %d x %d: %w", cols, rows, ErrData)
	}
	if len(s.Bound) != rows || len(s.Error) != rows {
		return nil, fmt.Errorf("report: tightness map has %d rows of Y but %d of bounds and %d of errors: %w", rows, len(s.Bound), len(s.Error), ErrData)
	}
	g := tGrid{x: s.X, y: s.Y, t: make([][]float64, rows), k: cellPixels}
	lo, hi := math.Inf(1), math.Inf(-1)
	zero := 0
	for i := range rows {
		if len(s.Bound[i]) != cols || len(s.Error[i]) != cols {
			return nil, fmt.Errorf("report: tightness map row %d has %d bounds and %d errors for %d columns: %w", i, len(s.Bound[i]), len(s.Error[i]), cols, ErrData)
		}
		g.t[i] = make([]float64, cols)
		for j := range cols {
			t := Tightness(s.Bound[i][j], s.Error[i][j])
			g.t[i][j] = t
			if math.IsNaN(t) {
				zero++
			} else {
				lo, hi = min(lo, t), max(hi, t)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("report: tightness map has no cell with a positive error and bound: %w", ErrData)
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-0.5, hi+0.5
	}
	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(lo)
	cmap.SetMax(hi)
	pal := cmap.Palette(255)

	title := orDefault(s.Title, "Tightness of the certified bound")
	if zero > 0 {
		title += " (grey: zero error)"
	}
	p := newPlot(title, orDefault(s.XLabel, "input x1"), orDefault(s.YLabel, "input x2"))
	hm := plotter.NewHeatMap(g, pal)
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.Gray{Y: 0xA0}
	hm.Rasterized = true
	p.Add(hm)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = hm.DataRange()
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Tick.Marker, p.Y.Tick.Marker = linTicks{}, linTicks{}

	bar := newPlot("", "", "T = ln(bound²) − ln(error²)")
	bar.HideX()
	bar.Y.Padding = 0
	bar.Y.Label.Position = draw.PosCenter
	cb := &plotter.ColorBar{ColorMap: cmap, Vertical: true}
	bar.Add(cb)
	bar.Y.Min, bar.Y.Max = lo, hi
	bar.Y.Tick.Marker = linTicks{}

	f := &Figure{Width: 6.5 * vg.Inch, Height: 5 * vg.Inch}
	f.draw = func(c draw.Canvas) {
		// The heat map takes the left part; the colour bar a strip on the
		// right, with its own axis; both share the vertical extent of the
		// heat map's data area.
		split := c.Max.X - 1.4*vg.Inch
		left := draw.Crop(c, 0, split-c.Max.X, 0, 0)
		right := draw.Crop(c, split-c.Min.X+0.35*vg.Inch, 0, 0, 0)
		p.Draw(left)
		da := p.DataCanvas(left)
		right.Max.X = right.Min.X + 0.8*vg.Inch
		bc := bar.DataCanvas(right)
		right.Min.Y += da.Min.Y - bc.Min.Y
		right.Max.Y += da.Max.Y - bc.Max.Y
		bar.Draw(right)
	}
	return f, nil
}

// cellPixels is how many image pixels, per axis, each grid cell of the
// heat map gets: the image is scaled with bilinear interpolation, which
// would blur single-pixel cells (a zero-error diagonal turns into dots).
const cellPixels = 8

// tGrid is the heat map's GridXYZ: rows are Y, columns X, each cell split
// into k x k equal sub-cells of the same value.
type tGrid struct {
	x, y []float64
	t    [][]float64
	k    int
}

func (g tGrid) Dims() (c, r int)   { return g.k * len(g.x), g.k * len(g.y) }
func (g tGrid) Z(c, r int) float64 { return g.t[r/g.k][c/g.k] }
func (g tGrid) X(c int) float64    { return sub(g.x, c, g.k) }
func (g tGrid) Y(r int) float64    { return sub(g.y, r, g.k) }

// sub returns the centre of sub-cell i of the grid v split k ways.
func sub(v []float64, i, k int) float64 {
	j := i / k
	var w float64 // width of cell j: the spacing of its neighbours
	switch {
	case j+1 < len(v):
		w = v[j+1] - v[j]
	case j > 0:
		w = v[j] - v[j-1]
	}
	return v[j] - w/2 + (float64(i%k)+0.5)*w/float64(k)
}

var _ plot.Plotter = (*plotter.HeatMap)(nil)
