package report

import (
	"image"
	"image/color"
	"math"
)

// point is a position on a figure, in points (1/72 inch) from its top
// left corner, y growing downwards.
type point struct{ x, y float64 }

// box is a rectangle on a figure, in points.
type box struct{ min, max point }

func (b box) width() float64  { return b.max.x - b.min.x }
func (b box) height() float64 { return b.max.y - b.min.y }

// lineStyle is how a line is stroked: colour, width and dash pattern in
// points (on, off, on, ...; none for a solid line).
type lineStyle struct {
	col    color.Color
	width  float64
	dashes []float64
}

// canvas is what the figures draw on: the PNG rasteriser and the SVG
// writer implement it.
type canvas interface {
	// stroke draws the polyline through pts.
	stroke(pts []point, ls lineStyle)
	// fill fills the polygon pts.
	fill(pts []point, col color.Color)
	// text writes s at size points with its baseline starting at p;
	// if up, it is turned a quarter turn anticlockwise to read upwards.
	text(p point, s string, size float64, up bool, col color.Color)
	// image draws img stretched over b, each pixel a flat rectangle.
	image(img *image.RGBA, b box)
	// clip limits the drawing that follows to b, or to the whole
	// figure if b is nil.
	clip(b *box)
}

// drawText writes s at size with its bounding box placed so that the
// fractions (ax, ay) of its width and height fall on p: (0, 0) puts the
// top left corner at p, (0.5, 0.5) the centre, (1, 1) the bottom right.
// Upward text is placed by its box on the page, turned.
func drawText(c canvas, p point, s string, size, ax, ay float64, up bool, col color.Color) {
	w, asc, desc := textMetrics(s, size)
	h := asc + desc
	if !up {
		c.text(point{p.x - ax*w, p.y - ay*h + asc}, s, size, false, col)
		return
	}
	// Turned, the box is h wide and w tall, the ascent to the left.
	c.text(point{p.x - ax*h + asc, p.y - ay*w + w}, s, size, true, col)
}

// rectPath returns the corners of b as a polygon.
func rectPath(b box) []point {
	return []point{b.min, {b.max.x, b.min.y}, b.max, {b.min.x, b.max.y}}
}

// circlePath returns a polygon of n sides approximating the circle of
// radius r around p.
func circlePath(p point, r float64, n int) []point {
	pts := make([]point, n)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / float64(n)
		pts[i] = point{p.x + r*math.Cos(a), p.y + r*math.Sin(a)}
	}
	return pts
}

// dashed splits the polyline pts into the pieces drawn by the dash
// pattern (on, off, on, ...), which restarts with each polyline.
func dashed(pts []point, pattern []float64) [][]point {
	if len(pattern) == 0 || len(pts) < 2 {
		return [][]point{pts}
	}
	total := 0.0
	for _, d := range pattern {
		total += d
	}
	if !(total > 0) {
		return [][]point{pts}
	}
	var pieces [][]point
	k, left, on := 0, pattern[0], true
	cur := []point{pts[0]}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		seg := math.Hypot(b.x-a.x, b.y-a.y)
		pos := 0.0
		for seg-pos > left {
			pos += left
			t := pos / seg
			q := point{a.x + t*(b.x-a.x), a.y + t*(b.y-a.y)}
			if on {
				pieces = append(pieces, append(cur, q))
			}
			cur = []point{q}
			on = !on
			k = (k + 1) % len(pattern)
			left = pattern[k]
		}
		left -= seg - pos
		cur = append(cur, b)
	}
	if on && len(cur) > 1 {
		pieces = append(pieces, cur)
	}
	return pieces
}
