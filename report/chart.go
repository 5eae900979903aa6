package report

// chart is a plot with a legend drawn below it, in two columns, where it
// cannot hide the data.
type chart struct {
	p    *plot
	keys []key
}

func newChart(p *plot) *chart { return &chart{p: p} }

// key is a legend entry: a name and a sample of how it is drawn.
type key struct {
	name  string
	thumb func(c canvas, b box)
}

// Legend layout: font size, row height and sample width in points.
const (
	keyFont  = 9
	keyRow   = 13
	keyThumb = 22
)

// key adds a legend entry.
func (c *chart) key(name string, thumb func(c canvas, b box)) {
	c.keys = append(c.keys, key{name, thumb})
}

// lineKey is the legend sample of a line, with g at its middle if g is
// not nil.
func lineKey(st lineStyle, g *glyph) func(canvas, box) {
	return func(c canvas, b box) {
		y := (b.min.y + b.max.y) / 2
		c.stroke([]point{{b.min.x, y}, {b.max.x, y}}, st)
		if g != nil {
			g.draw(c, point{(b.min.x + b.max.x) / 2, y})
		}
	}
}

// vruleKey is the legend sample of a vertical rule.
func vruleKey(st lineStyle) func(canvas, box) {
	return func(c canvas, b box) {
		x := (b.min.x + b.max.x) / 2
		c.stroke([]point{{x, b.min.y}, {x, b.max.y}}, st)
	}
}

// glyphKey is the legend sample of points drawn as g.
func glyphKey(g glyph) func(canvas, box) {
	return func(c canvas, b box) { g.draw(c, point{(b.min.x + b.max.x) / 2, (b.min.y + b.max.y) / 2}) }
}

// fitsHalf reports whether every legend entry fits in half the width of
// the data area of a 6-inch-wide figure.
func (c *chart) fitsHalf() bool {
	half := c.p.layout(box{max: point{6 * Inch, 4 * Inch}}).width() / 2
	for _, k := range c.keys {
		if w, _, _ := textMetrics(k.name, keyFont); keyThumb+6+w > half-4 {
			return false
		}
	}
	return true
}

// figure returns a figure of the chart, 6 inches wide, 4 inches tall plus
// the legend.
func (c *chart) figure() *Figure {
	cols := min(len(c.keys), 2)
	if cols == 2 && !c.fitsHalf() {
		cols = 1
	}
	rows := 0
	if cols > 0 {
		rows = (len(c.keys) + cols - 1) / cols
	}
	strip := 0.0
	if rows > 0 {
		strip = float64(rows*keyRow + 10)
	}
	f := &Figure{Width: 6 * Inch, Height: 4*Inch + strip}
	f.draw = func(cv canvas, w, h float64) {
		fr := c.p.draw(cv, box{max: point{w, h - strip}})
		width := fr.area.width() / float64(max(cols, 1))
		for i, k := range c.keys {
			j, row := i/rows, i%rows
			x := fr.area.min.x + float64(j)*width
			y := h - strip + 4 + float64(row)*keyRow
			k.thumb(cv, box{point{x, y + 2}, point{x + keyThumb, y + keyRow - 2}})
			drawText(cv, point{x + keyThumb + 6, y + keyRow/2}, k.name, keyFont, 0, 0.5, false, colText)
		}
	}
	return f
}
