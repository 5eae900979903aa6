package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"path/filepath"
	"strings"

	"github.com/nnbound/nnbound/internal/atomicfile"
)

// ErrFormat reports a figure file name whose extension is not a supported
// image format.
var ErrFormat = errors.New("unsupported figure format")

// ErrData reports figure data that cannot be drawn (no points, lengths
// that do not match, nothing positive for a log scale).
var ErrData = errors.New("no data to draw")

// Inch is the length of an inch in points, the unit of Figure's size.
const Inch = 72

// Figure is a drawing ready to be written as PNG or SVG. The same figure
// encodes to the same bytes every time.
type Figure struct {
	// Width and Height are the size of the figure in points, 1/72 inch
	// (default 6 x 4 inches).
	Width, Height float64
	draw          func(c canvas, w, h float64)
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
		width = 6 * Inch
	}
	if height <= 0 {
		height = 4 * Inch
	}
	var out []byte
	switch format {
	case "png":
		r := newRaster(width, height, dpi)
		f.draw(r, width, height)
		var b bytes.Buffer
		if err := png.Encode(&b, r.img); err != nil {
			return fmt.Errorf("report: encoding PNG: %w", err)
		}
		out = b.Bytes()
	case "svg":
		s := newSVG(width, height)
		f.draw(s, width, height)
		b, err := s.bytes()
		if err != nil {
			return err
		}
		out = b
	default:
		return fmt.Errorf("report: format %q is not supported (want png or svg): %w", format, ErrFormat)
	}
	_, err := w.Write(out)
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
