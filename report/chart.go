package report

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chart is a plot with a legend drawn below it, in two columns, where it
// cannot hide the data.
//
// On a log axis, gonum/plot places the axis label at the data midpoint,
// (min+max)/2, which sits near the top and makes the plot reserve room
// for it there; so a chart draws the label of a log y axis itself.
type chart struct {
	p    *plot.Plot
	keys []key
}

// newChart returns a chart of p. Set p's axes before calling figure: if
// the y axis is logarithmic then, figure draws its label.
func newChart(p *plot.Plot) *chart {
	return &chart{p: p}
}

type key struct {
	name   string
	thumbs []plot.Thumbnailer
}

// Legend layout: font size and row height in points.
const (
	keyFont = 9
	keyRow  = 13
)

// key adds a legend entry.
func (c *chart) key(name string, thumbs ...plot.Thumbnailer) {
	c.keys = append(c.keys, key{name, thumbs})
}

// figure returns a figure of the chart, 6 inches wide, 4 inches tall plus
// the legend.
func (c *chart) figure() *Figure {
	cols := min(len(c.keys), 2)
	rows := 0
	if cols > 0 {
		rows = (len(c.keys) + cols - 1) / cols
	}
	strip := vg.Length(0)
	if rows > 0 {
		strip = vg.Points(float64(rows*keyRow + 10))
	}
	f := &Figure{Width: 6 * vg.Inch, Height: 4*vg.Inch + strip}
	yl := c.p.Y.Label
	_, logY := c.p.Y.Scale.(logScale)
	if logY {
		c.p.Y.Label.Text = ""
	}
	f.draw = func(dc draw.Canvas) {
		top := draw.Crop(dc, 0, 0, strip, 0)
		if logY && yl.Text != "" {
			sty := yl.TextStyle
			sty.Rotation = math.Pi / 2
			sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
			h := yl.TextStyle.Height(yl.Text)
			inner := draw.Crop(top, h+yl.Padding, 0, 0, 0)
			da := c.p.DataCanvas(inner)
			top.FillText(sty, vg.Point{X: top.Min.X, Y: (da.Min.Y + da.Max.Y) / 2}, yl.Text)
			top = inner
		}
		c.p.Draw(top)
		if rows == 0 {
			return
		}
		da := c.p.DataCanvas(top)
		width := (da.Max.X - da.Min.X) / vg.Length(cols)
		for j := range cols {
			leg := plot.NewLegend()
			leg.Left, leg.Top = true, true
			leg.TextStyle.Font.Size = keyFont
			leg.Padding = vg.Points(keyRow) - leg.TextStyle.Rectangle("Xg").Max.Y
			for i := j * rows; i < min((j+1)*rows, len(c.keys)); i++ {
				leg.Add(c.keys[i].name, c.keys[i].thumbs...)
			}
			col := dc
			col.Min.X = da.Min.X + vg.Length(j)*width
			col.Max.X = col.Min.X + width
			col.Max.Y = dc.Min.Y + strip - vg.Points(4)
			leg.Draw(col)
		}
	}
	return f
}
