package report

import (
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// goRegularFont holds the figures' typeface once parsed (goRegular).
var goRegularFont struct {
	once sync.Once
	font *opentype.Font
	err  error
}

// goRegular returns the figures' typeface, parsed on first use so that a
// program that draws no figure does not pay for it. (A sync.Once rather
// than a package-level sync.OnceValues, whose call would run at the start
// of every program that links report.)
func goRegular() (*opentype.Font, error) {
	f := &goRegularFont
	f.once.Do(func() { f.font, f.err = opentype.Parse(goregular.TTF) })
	return f.font, f.err
}

// newFace returns a face of the figures' typeface at size points, with
// dpi pixels per inch (72 for measuring in points). A face is not safe
// for concurrent use, so each caller makes its own.
func newFace(size, dpi float64) font.Face {
	if f, err := goRegular(); err == nil {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: dpi, Hinting: font.HintingNone})
		if err == nil {
			return face
		}
	}
	return basicfont.Face7x13 // not reached with the embedded font
}

// fromFixed converts a 26.6 fixed-point length to a float.
func fromFixed(v fixed.Int26_6) float64 { return float64(v) / 64 }

// textMetrics returns the width of s and the ascent and descent of the
// typeface at size, all in points.
func textMetrics(s string, size float64) (width, ascent, descent float64) {
	face := newFace(size, 72)
	defer face.Close()
	m := face.Metrics()
	return fromFixed(font.MeasureString(face, s)), fromFixed(m.Ascent), fromFixed(m.Descent)
}

// lineHeight returns the height of a line of text at size, in points.
func lineHeight(size float64) float64 {
	_, a, d := textMetrics("", size)
	return a + d
}
