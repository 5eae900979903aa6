package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// ErrFormat reports a figure file name whose extension is not a supported
// image format.
var ErrFormat = errors.New("unsupported figure format")

// ErrData reports figure data that cannot be drawn (no points, lengths
// that do not match, nothing positive for a log scale).
var ErrData = errors.New("no data to draw")

// Figure is a drawing ready to be written as PNG or SVG.
type Figure struct {
	// Width and Height are the size of the figure (default 6 x 4 inches).
	Width, Height vg.Length
	draw          func(draw.Canvas)
}

// dpi is the resolution of PNG figures.
const dpi = 150

// CheckPath reports whether path names a figure format Save can write
// (.png or .svg, in any case), so that a command can refuse a bad --plot
// before doing any work.
func CheckPath(path string) error {
	_, err := format(path)
	return err
}

func format(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch ext {
	case "png", "svg":
		return ext, nil
	case "":
		return "", fmt.Errorf("report: figure file %q has no extension (want .png or .svg): %w", path, ErrFormat)
	}
	return "", fmt.Errorf("report: figure file %q: .%s is not supported (want .png or .svg): %w", path, ext, ErrFormat)
}

// Save writes f to path, as PNG or SVG according to the extension,
// atomically: on error, path is left as it was.
func (f *Figure) Save(path string) error {
	ft, err := format(path)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return f.Encode(w, ft) })
}

// Encode writes f to w in the format "png" or "svg".
func (f *Figure) Encode(w io.Writer, format string) error {
	width, height := f.Width, f.Height
	if width <= 0 {
		width = 6 * vg.Inch
	}
	if height <= 0 {
		height = 4 * vg.Inch
	}
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi))
		c = vgimg.PngCanvas{Canvas: img}
	case "svg":
		c = vgsvg.New(width, height)
	default:
		return fmt.Errorf("report: format %q is not supported (want png or svg): %w", format, ErrFormat)
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	f.draw(dc)
	_, err := c.WriteTo(w)
	return err
}

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

// The palette of the figures: colour-blind safe (Okabe and Ito).
var (
	colBound = color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF} // blue
	colError = color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF} // vermilion
	colWorst = color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF} // bluish green
	colMark  = color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF} // reddish purple
	colGrid  = color.Gray{Y: 0xD8}
	colSteps = color.Gray{Y: 0xB0}
	series   = []color.Color{colBound, colError, colWorst, colMark,
		color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}, color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}}
)

// newPlot returns a plot with nnbound's fonts and a light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 13
	p.Title.Padding = 6
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = 11
		a.Tick.Label.Font.Size = 9
	}
	return p
}

// grid draws light grid lines behind the data.
type grid struct{ x, y bool }

func (g grid) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	style := draw.LineStyle{Color: colGrid, Width: vg.Points(0.5)}
	if g.x {
		for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
			if t.Label == "" || t.Value < p.X.Min || t.Value > p.X.Max {
				continue
			}
			x := tx(t.Value)
			c.StrokeLine2(style, x, c.Min.Y, x, c.Max.Y)
		}
	}
	if g.y {
		for _, t := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if t.Label == "" || t.Value < p.Y.Min || t.Value > p.Y.Max {
				continue
			}
			y := ty(t.Value)
			c.StrokeLine2(style, c.Min.X, y, c.Max.X, y)
		}
	}
}

// vrules draws full-height vertical lines at X.
type vrules struct {
	X     []float64
	Style draw.LineStyle
}

func (v vrules) Plot(c draw.Canvas, p *plot.Plot) {
	tx, _ := p.Transforms(&c)
	for _, x := range v.X {
		if x < p.X.Min || x > p.X.Max {
			continue
		}
		c.StrokeLine2(v.Style, tx(x), c.Min.Y, tx(x), c.Max.Y)
	}
}

// Thumbnail draws the legend entry of v.
func (v vrules) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(v.Style, x, c.Min.Y, x, c.Max.Y)
}

// hrule draws a full-width horizontal line at Y.
type hrule struct {
	Y     float64
	Style draw.LineStyle
}

func (h hrule) Plot(c draw.Canvas, p *plot.Plot) {
	_, ty := p.Transforms(&c)
	if h.Y < p.Y.Min || h.Y > p.Y.Max {
		return
	}
	c.StrokeLine2(h.Style, c.Min.X, ty(h.Y), c.Max.X, ty(h.Y))
}

// Thumbnail draws the legend entry of h.
func (h hrule) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(h.Style, c.Min.X, y, c.Max.X, y)
}

// logTicks marks decades on a log axis, labelled "0.01", "1", "1e5",
// with unlabelled minor ticks at 2..9; over less than a decade it labels
// 2 and 5 as well, over more than eight it labels every other decade.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	first := int(math.Floor(math.Log10(lo)))
	last := int(math.Ceil(math.Log10(hi)))
	span := last - first
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		dec := math.Pow10(e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * dec
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			label := ""
			switch {
			case m == 1 && (span <= 8 || (e-first)%2 == 0):
				label = tickLabel(v)
			case span <= 3 && (m == 2 || m == 5), span <= 1 && m == 3:
				label = tickLabel(v)
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: label})
		}
	}
	return ticks
}

// linTicks labels a linear axis every 1, 2, 2.5 or 5 times a power of
// ten, about six labels over the range, with unlabelled ticks between.
type linTicks struct{}

func (linTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	raw := (hi - lo) / 6
	p := math.Pow10(int(math.Floor(math.Log10(raw))))
	step := 10 * p
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo / step * 2); k/2*step <= hi*(1+1e-12); k++ {
		v := k / 2 * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		label := ""
		if int(k)%2 == 0 {
			label = strconv.FormatFloat(v, 'g', 12, 64)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

// setLog makes a a log axis over [lo, hi].
func setLog(a *plot.Axis, lo, hi float64) {
	a.Scale = logScale{}
	a.Tick.Marker = logTicks{}
	a.Min, a.Max = lo, hi
}

// tickLabel writes a power-of-ten multiple plainly between 1e-4 and 1e4
// ("0.001", "5000") and in exponent form outside ("1e-7", "2e5").
func tickLabel(v float64) string {
	if v >= 1e-4 && v < 1e4 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return Float(v, 1)
}

// logRange returns the range of a log axis holding the positive, finite
// values of vs, widened to at least a factor 4 and limited to floor
// decades below the largest value; ok is false if no value is positive.
func logRange(floor float64, vs ...[]float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), 0
	for _, v := range vs {
		for _, x := range v {
			if x > 0 && !math.IsInf(x, 0) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	if hi == 0 {
		return 0, 0, false
	}
	lo = max(lo, hi*math.Pow10(-int(floor)))
	if hi/lo < 4 {
		mid := math.Sqrt(hi * lo)
		lo, hi = mid/2, mid*2
	}
	// Room above for the largest values, a little below.
	return lo / 1.25, hi * 1.6, true
}

// positiveRuns splits the points (x[i], y[i]) into runs of consecutive
// points with positive, finite y, for lines on a log scale.
func positiveRuns(x, y []float64) [][2][]float64 {
	var runs [][2][]float64
	var cx, cy []float64
	flush := func() {
		if len(cx) > 0 {
			runs = append(runs, [2][]float64{cx, cy})
		}
		cx, cy = nil, nil
	}
	for i := range x {
		if y[i] > 0 && !math.IsInf(y[i], 0) && !math.IsNaN(x[i]) {
			cx, cy = append(cx, x[i]), append(cy, y[i])
			continue
		}
		flush()
	}
	flush()
	return runs
}

// logScale is plot.LogScale without its panic on values <= 0, which it
// maps far below the axis (where drawing clips them).
type logScale struct{}

func (logScale) Normalize(lo, hi, x float64) float64 {
	if !(lo > 0) || !(hi > lo) {
		return 0.5
	}
	if !(x > 0) {
		return -10
	}
	return (math.Log(x) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
}
