package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"
)

// svg is the SVG canvas: it writes one element per call, in points.
type svg struct {
	buf   bytes.Buffer
	w, h  float64
	clips int
	open  bool // inside a clipped group
	err   error
}

func newSVG(w, h float64) *svg {
	s := &svg{w: w, h: h}
	fmt.Fprintf(&s.buf, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%spt\" height=\"%spt\" viewBox=\"0 0 %s %s\">\n",
		num(w), num(h), num(w), num(h))
	fmt.Fprintf(&s.buf, "<rect width=\"%s\" height=\"%s\" fill=\"#ffffff\"/>\n", num(w), num(h))
	return s
}

// bytes closes the document and returns it.
func (s *svg) bytes() ([]byte, error) {
	s.clip(nil)
	s.buf.WriteString("</svg>\n")
	return s.buf.Bytes(), s.err
}

// num writes a length in points, rounded to two decimals.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// colour returns the fill or stroke attributes of c.
func colour(attr string, c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	s := fmt.Sprintf(" %s=\"#%02x%02x%02x\"", attr, n.R, n.G, n.B)
	if n.A != 0xff {
		s += fmt.Sprintf(" %s-opacity=\"%s\"", attr, num(float64(n.A)/255))
	}
	return s
}

func points(pts []point) string {
	var b strings.Builder
	for i, p := range pts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(num(p.x) + "," + num(p.y))
	}
	return b.String()
}

func (s *svg) clip(b *box) {
	if s.open {
		s.buf.WriteString("</g>\n")
		s.open = false
	}
	if b == nil {
		return
	}
	s.clips++
	fmt.Fprintf(&s.buf, "<clipPath id=\"c%d\"><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/></clipPath>\n<g clip-path=\"url(#c%d)\">\n",
		s.clips, num(b.min.x), num(b.min.y), num(b.width()), num(b.height()), s.clips)
	s.open = true
}

func (s *svg) stroke(pts []point, ls lineStyle) {
	dash := ""
	if len(ls.dashes) > 0 {
		d := make([]string, len(ls.dashes))
		for i, v := range ls.dashes {
			d[i] = num(v)
		}
		dash = fmt.Sprintf(" stroke-dasharray=\"%s\"", strings.Join(d, ","))
	}
	fmt.Fprintf(&s.buf, "<polyline points=\"%s\" fill=\"none\"%s stroke-width=\"%s\" stroke-linejoin=\"round\"%s/>\n",
		points(pts), colour("stroke", ls.col), num(ls.width), dash)
}

func (s *svg) fill(pts []point, col color.Color) {
	fmt.Fprintf(&s.buf, "<polygon points=\"%s\"%s/>\n", points(pts), colour("fill", col))
}

func (s *svg) text(p point, str string, size float64, up bool, col color.Color) {
	turn := ""
	if up {
		turn = fmt.Sprintf(" transform=\"rotate(-90 %s %s)\"", num(p.x), num(p.y))
	}
	var esc bytes.Buffer
	xmlEscape(&esc, str)
	fmt.Fprintf(&s.buf, "<text x=\"%s\" y=\"%s\" font-family=\"Go, sans-serif\" font-size=\"%s\"%s%s>%s</text>\n",
		num(p.x), num(p.y), num(size), colour("fill", col), turn, esc.String())
}

func (s *svg) image(img *image.RGBA, b box) {
	var enc bytes.Buffer
	if err := png.Encode(&enc, img); err != nil && s.err == nil {
		s.err = fmt.Errorf("report: heat map image: %w", err)
	}
	fmt.Fprintf(&s.buf, "<image x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,%s\"/>\n",
		num(b.min.x), num(b.min.y), num(b.width()), num(b.height()), base64.StdEncoding.EncodeToString(enc.Bytes()))
}

func xmlEscape(b *bytes.Buffer, s string) {
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
}
