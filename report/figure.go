package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
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

// format returns "png" or "svg" from the extension of path.
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
