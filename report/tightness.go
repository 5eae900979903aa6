package report

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// Surface is the data of the two-input figure: the bound and the error on
// a grid of the input box.
type Surface struct {
	Title string // default "Tightness of the certified bound"
	// XLabel and YLabel name the axes, by default "input 1" and "input 2",
	// the two coordinates of the input (x1 and x2 name the two networks'
	// inputs elsewhere).
	XLabel, YLabel string
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
	t := make([][]float64, rows)
	lo, hi := math.Inf(1), math.Inf(-1)
	zero := 0
	for i := range rows {
		if len(s.Bound[i]) != cols || len(s.Error[i]) != cols {
			return nil, fmt.Errorf("report: tightness map row %d has %d bounds and %d errors for %d columns: %w", i, len(s.Bound[i]), len(s.Error[i]), cols, ErrData)
		}
		t[i] = make([]float64, cols)
		for j := range cols {
			v := Tightness(s.Bound[i][j], s.Error[i][j])
			t[i][j] = v
			if math.IsNaN(v) {
				zero++
			} else {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("report: tightness map has no cell with a positive error and bound: %w", ErrData)
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-0.5, hi+0.5
	}
	// One pixel per cell, the first row of Y at the bottom.
	img := image.NewRGBA(image.Rect(0, 0, cols, rows))
	for i := range rows {
		for j := range cols {
			img.Set(j, rows-1-i, coolWarm(t[i][j], lo, hi))
		}
	}
	title := orDefault(s.Title, "Tightness of the certified bound")
	if zero > 0 {
		title += " (grey: zero error)"
	}
	p := newPlot(title, orDefault(s.XLabel, "input 1"), orDefault(s.YLabel, "input 2"))
	// Each cell is centred on its grid point.
	dx, dy := (s.X[cols-1]-s.X[0])/float64(cols-1), (s.Y[rows-1]-s.Y[0])/float64(rows-1)
	p.x.min, p.x.max = s.X[0]-dx/2, s.X[cols-1]+dx/2
	p.y.min, p.y.max = s.Y[0]-dy/2, s.Y[rows-1]+dy/2
	p.add(func(c canvas, f frame) { c.image(img, f.area) })
	bar := axis{label: "T = ln(bound²) − ln(error²)", min: lo, max: hi}

	f := &Figure{Width: 6.5 * Inch, Height: 5 * Inch}
	f.draw = func(c canvas, w, h float64) {
		// The heat map takes the left part; the colour bar a strip on the
		// right, over the vertical extent of the heat map's data area.
		fr := p.draw(c, box{max: point{w - 1.3*Inch, h}})
		colourBar(c, bar, box{point{w - 1.3*Inch + 10, fr.area.min.y}, point{w - 1.3*Inch + 28, fr.area.max.y}})
	}
	return f, nil
}

// colourBar draws the colour map over [a.min, a.max] in b, with a's ticks
// and label on its right.
func colourBar(c canvas, a axis, b box) {
	const steps = 256
	img := image.NewRGBA(image.Rect(0, 0, 1, steps))
	for i := range steps {
		img.Set(0, steps-1-i, coolWarm(a.min+(a.max-a.min)*(float64(i)+0.5)/steps, a.min, a.max))
	}
	c.image(img, b)
	st := lineStyle{col: colAxis, width: 0.6}
	c.stroke(append(rectPath(b), b.min), st)
	wide := 0.0
	for _, t := range a.marks() {
		y := b.max.y - a.norm(t.value)*b.height()
		l := float64(tickLen)
		if t.label == "" {
			l /= 2
		}
		c.stroke([]point{{b.max.x, y}, {b.max.x + l, y}}, st)
		drawText(c, point{b.max.x + tickLen + 3, y}, t.label, tickSize, 0, 0.5, false, colText)
		w, _, _ := textMetrics(t.label, tickSize)
		wide = max(wide, w)
	}
	drawText(c, point{b.max.x + tickLen + 3 + wide + 6, (b.min.y + b.max.y) / 2}, a.label, labelSize, 0, 0.5, true, colText)
}

// coolWarmStops is Moreland's diverging blue to red colour map at nine
// evenly spaced points.
var coolWarmStops = [][3]float64{
	{59, 76, 192}, {98, 130, 234}, {141, 176, 254}, {184, 208, 249}, {221, 221, 221},
	{245, 196, 173}, {244, 154, 123}, {222, 96, 77}, {180, 4, 38},
}

// coolWarm returns the colour of v on the diverging map over [lo, hi],
// grey for NaN.
func coolWarm(v, lo, hi float64) color.Color {
	if math.IsNaN(v) {
		return color.Gray{Y: 0xA0}
	}
	u := 0.5
	if hi > lo {
		u = min(max((v-lo)/(hi-lo), 0), 1)
	}
	u *= float64(len(coolWarmStops) - 1)
	k := min(int(u), len(coolWarmStops)-2)
	a, b, fr := coolWarmStops[k], coolWarmStops[k+1], u-float64(k)
	mix := func(i int) uint8 { return uint8(math.Round(a[i] + fr*(b[i]-a[i]))) }
	return color.RGBA{R: mix(0), G: mix(1), B: mix(2), A: 0xFF}
}
