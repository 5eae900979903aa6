package report

import (
	"image/color"
	"math"
)

// tick is a mark on an axis; only labelled ticks get a grid line.
type tick struct {
	value float64
	label string
}

// axis is one axis of a plot: its range, scale, ticks and label.
type axis struct {
	label    string
	min, max float64
	log      bool
	ticks    func(lo, hi float64) []tick
}

// norm returns where v falls on the axis, 0 at min and 1 at max; on a log
// axis a value that is not positive falls far below it.
func (a *axis) norm(v float64) float64 {
	if !a.log {
		if a.max == a.min {
			return 0.5
		}
		return (v - a.min) / (a.max - a.min)
	}
	if !(a.min > 0) || !(a.max > a.min) {
		return 0.5
	}
	if !(v > 0) {
		return -10
	}
	return math.Log(v/a.min) / math.Log(a.max/a.min)
}

// marks returns the axis's ticks inside its range.
func (a *axis) marks() []tick {
	tf := a.ticks
	if tf == nil {
		tf = linTicks
		if a.log {
			tf = logTicks
		}
	}
	var in []tick
	for _, t := range tf(a.min, a.max) {
		if t.value >= a.min-1e-12*math.Abs(a.min) && t.value <= a.max+1e-12*math.Abs(a.max) {
			in = append(in, t)
		}
	}
	return in
}

// setLog makes a a log axis over [lo, hi].
func (a *axis) setLog(lo, hi float64) { a.log, a.min, a.max = true, lo, hi }

// frame maps data coordinates into the data area of a drawn plot.
type frame struct {
	area box
	x, y *axis
}

func (f frame) at(x, y float64) point {
	return point{f.area.min.x + f.x.norm(x)*f.area.width(), f.area.max.y - f.y.norm(y)*f.area.height()}
}

// plot is a titled pair of axes with things drawn in the data area.
type plot struct {
	title string
	x, y  axis
	// items draw the data, in order, clipped to the data area.
	items []func(c canvas, f frame)
}

// Font sizes in points.
const (
	titleSize = 13
	labelSize = 11
	tickSize  = 9
	tickLen   = 5
)

var (
	colAxis = color.Gray{Y: 0x00}
	colText = color.Gray{Y: 0x00}
)

func newPlot(title, xLabel, yLabel string) *plot {
	return &plot{title: title, x: axis{label: xLabel}, y: axis{label: yLabel}}
}

func (p *plot) add(item func(c canvas, f frame)) { p.items = append(p.items, item) }

// layout returns the data area of p drawn in b.
func (p *plot) layout(b box) box {
	area := b
	area.min.y += 6
	if p.title != "" {
		area.min.y += lineHeight(titleSize) + 6
	}
	area.min.y += tickSize / 2 // room for the top tick label
	area.min.x += 6 + tickLen + 3
	if p.y.label != "" {
		area.min.x += lineHeight(labelSize) + 4
	}
	wide, last := 0.0, 0.0
	for _, t := range p.y.marks() {
		w, _, _ := textMetrics(t.label, tickSize)
		wide = max(wide, w)
	}
	area.min.x += wide
	for _, t := range p.x.marks() {
		if t.label != "" {
			last, _, _ = textMetrics(t.label, tickSize)
		}
	}
	area.max.x -= max(12, last/2+4)
	area.max.y -= 6 + tickLen + 3 + lineHeight(tickSize)
	if p.x.label != "" {
		area.max.y -= lineHeight(labelSize) + 3
	}
	return area
}

// draw draws p in b and returns its frame.
func (p *plot) draw(c canvas, b box) frame {
	f := frame{area: p.layout(b), x: &p.x, y: &p.y}
	a := f.area
	if p.title != "" {
		drawText(c, point{(a.min.x + a.max.x) / 2, b.min.y + 6}, p.title, titleSize, 0.5, 0, false, colText)
	}
	c.clip(&a)
	for _, it := range p.items {
		it(c, f)
	}
	c.clip(nil)
	axisLine := lineStyle{col: colAxis, width: 0.6}
	c.stroke([]point{{a.min.x, a.min.y}, {a.min.x, a.max.y}, {a.max.x, a.max.y}}, axisLine)
	for _, t := range p.x.marks() {
		x := f.at(t.value, p.y.min).x
		l := float64(tickLen)
		if t.label == "" {
			l /= 2
		}
		c.stroke([]point{{x, a.max.y}, {x, a.max.y + l}}, axisLine)
		drawText(c, point{x, a.max.y + tickLen + 3}, t.label, tickSize, 0.5, 0, false, colText)
	}
	for _, t := range p.y.marks() {
		y := f.at(p.x.min, t.value).y
		l := float64(tickLen)
		if t.label == "" {
			l /= 2
		}
		c.stroke([]point{{a.min.x, y}, {a.min.x - l, y}}, axisLine)
		drawText(c, point{a.min.x - tickLen - 3, y}, t.label, tickSize, 1, 0.5, false, colText)
	}
	if p.x.label != "" {
		drawText(c, point{(a.min.x + a.max.x) / 2, b.max.y - 6}, p.x.label, labelSize, 0.5, 1, false, colText)
	}
	if p.y.label != "" {
		drawText(c, point{b.min.x + 6, (a.min.y + a.max.y) / 2}, p.y.label, labelSize, 0, 0.5, true, colText)
	}
	return f
}

// grid draws light lines at the labelled ticks of the x and y axes.
func grid(x, y bool) func(canvas, frame) {
	return func(c canvas, f frame) {
		st := lineStyle{col: colGrid, width: 0.5}
		if x {
			for _, t := range f.x.marks() {
				if t.label != "" {
					px := f.at(t.value, f.y.min).x
					c.stroke([]point{{px, f.area.min.y}, {px, f.area.max.y}}, st)
				}
			}
		}
		if y {
			for _, t := range f.y.marks() {
				if t.label != "" {
					py := f.at(f.x.min, t.value).y
					c.stroke([]point{{f.area.min.x, py}, {f.area.max.x, py}}, st)
				}
			}
		}
	}
}

// vrules draws full-height vertical lines at xs.
func vrules(xs []float64, st lineStyle) func(canvas, frame) {
	return func(c canvas, f frame) {
		for _, x := range xs {
			if x >= f.x.min && x <= f.x.max {
				px := f.at(x, f.y.min).x
				c.stroke([]point{{px, f.area.min.y}, {px, f.area.max.y}}, st)
			}
		}
	}
}

// hrule draws a full-width horizontal line at y.
func hrule(y float64, st lineStyle) func(canvas, frame) {
	return func(c canvas, f frame) {
		if y >= f.y.min && y <= f.y.max {
			py := f.at(f.x.min, y).y
			c.stroke([]point{{f.area.min.x, py}, {f.area.max.x, py}}, st)
		}
	}
}

// line draws the polyline through (x[i], y[i]).
func line(x, y []float64, st lineStyle) func(canvas, frame) {
	return func(c canvas, f frame) {
		pts := make([]point, len(x))
		for i := range x {
			pts[i] = f.at(x[i], y[i])
		}
		c.stroke(pts, st)
	}
}

// glyph is a point marker: a filled circle, a filled triangle or a
// stroked cross, of radius r points.
type glyph struct {
	shape int // circle, triangle or cross
	col   color.Color
	r     float64
}

const (
	circle = iota
	triangle
	cross
)

func (g glyph) draw(c canvas, p point) {
	switch g.shape {
	case triangle:
		h := g.r * 1.3
		c.fill([]point{{p.x, p.y - h}, {p.x + h*0.87, p.y + h/2}, {p.x - h*0.87, p.y + h/2}}, g.col)
	case cross:
		st := lineStyle{col: g.col, width: 1.2}
		c.stroke([]point{{p.x - g.r, p.y - g.r}, {p.x + g.r, p.y + g.r}}, st)
		c.stroke([]point{{p.x - g.r, p.y + g.r}, {p.x + g.r, p.y - g.r}}, st)
	default:
		c.fill(circlePath(p, g.r, 16), g.col)
	}
}

// scatter draws g at each (x[i], y[i]).
func scatter(x, y []float64, g glyph) func(canvas, frame) {
	return func(c canvas, f frame) {
		for i := range x {
			g.draw(c, f.at(x[i], y[i]))
		}
	}
}
