package report

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// raster is the PNG canvas: an RGBA image drawn with anti-aliased paths.
type raster struct {
	img   *image.RGBA
	scale float64 // pixels per point
	cl    image.Rectangle
	z     vector.Rasterizer
}

// newRaster returns a white raster of w x h points at dpi pixels per inch.
func newRaster(w, h, dpi float64) *raster {
	s := dpi / 72
	img := image.NewRGBA(image.Rect(0, 0, int(math.Ceil(w*s)), int(math.Ceil(h*s))))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	return &raster{img: img, scale: s, cl: img.Bounds()}
}

func (r *raster) clip(b *box) {
	r.cl = r.img.Bounds()
	if b != nil {
		r.cl = r.pixels(*b).Intersect(r.cl)
	}
}

// pixels returns the pixels covering b.
func (r *raster) pixels(b box) image.Rectangle {
	return image.Rect(int(math.Floor(b.min.x*r.scale)), int(math.Floor(b.min.y*r.scale)),
		int(math.Ceil(b.max.x*r.scale)), int(math.Ceil(b.max.y*r.scale)))
}

// paint fills the polygons, all turning the same way so that overlaps do
// not cancel, in one colour.
func (r *raster) paint(polys [][]point, col color.Color) {
	var bb box
	first := true
	for _, p := range polys {
		for _, q := range p {
			if first {
				bb, first = box{q, q}, false
			}
			bb.min = point{min(bb.min.x, q.x), min(bb.min.y, q.y)}
			bb.max = point{max(bb.max.x, q.x), max(bb.max.y, q.y)}
		}
	}
	rect := r.pixels(bb).Inset(-1).Intersect(r.cl)
	if first || rect.Empty() {
		return
	}
	r.z.Reset(rect.Dx(), rect.Dy())
	r.z.DrawOp = draw.Over
	ox, oy := float64(rect.Min.X), float64(rect.Min.Y)
	for _, p := range polys {
		if len(p) < 3 {
			continue
		}
		if area(p) < 0 {
			p = reversed(p)
		}
		r.z.MoveTo(float32(p[0].x*r.scale-ox), float32(p[0].y*r.scale-oy))
		for _, q := range p[1:] {
			r.z.LineTo(float32(q.x*r.scale-ox), float32(q.y*r.scale-oy))
		}
		r.z.ClosePath()
	}
	r.z.Draw(r.img, rect, image.NewUniform(col), image.Point{})
}

func (r *raster) fill(pts []point, col color.Color) { r.paint([][]point{pts}, col) }

// stroke draws each segment as a rectangle and each inner vertex as a
// small disc, so that joins are round.
func (r *raster) stroke(pts []point, ls lineStyle) {
	hw := ls.width / 2
	var polys [][]point
	for _, piece := range dashed(pts, ls.dashes) {
		for i := 1; i < len(piece); i++ {
			a, b := piece[i-1], piece[i]
			d := math.Hypot(b.x-a.x, b.y-a.y)
			if d == 0 {
				continue
			}
			nx, ny := -(b.y-a.y)/d*hw, (b.x-a.x)/d*hw
			polys = append(polys, []point{{a.x + nx, a.y + ny}, {b.x + nx, b.y + ny}, {b.x - nx, b.y - ny}, {a.x - nx, a.y - ny}})
			if i+1 < len(piece) {
				polys = append(polys, circlePath(b, hw, 12))
			}
		}
	}
	r.paint(polys, ls.col)
}

func (r *raster) text(p point, s string, size float64, up bool, col color.Color) {
	face := newFace(size, 72*r.scale)
	defer face.Close()
	m := face.Metrics()
	w := font.MeasureString(face, s).Ceil() + 2
	h := (m.Ascent + m.Descent).Ceil() + 2
	mask := image.NewAlpha(image.Rect(0, 0, w, h))
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: face, Dot: fixed.Point26_6{X: fixed.I(1), Y: m.Ascent + fixed.I(1)}}
	d.DrawString(s)
	asc := fromFixed(m.Ascent) + 1
	at := image.Pt(int(math.Round(p.x*r.scale-1)), int(math.Round(p.y*r.scale-asc)))
	if up {
		turned := image.NewAlpha(image.Rect(0, 0, h, w))
		for y := range h {
			for x := range w {
				turned.Pix[(w-1-x)*turned.Stride+y] = mask.Pix[y*mask.Stride+x]
			}
		}
		mask = turned
		at = image.Pt(int(math.Round(p.x*r.scale-asc)), int(math.Round(p.y*r.scale))-w+1)
	}
	dst := mask.Bounds().Add(at)
	draw.DrawMask(r.img, dst.Intersect(r.cl), image.NewUniform(col), image.Point{}, mask, dst.Intersect(r.cl).Min.Sub(at), draw.Over)
}

func (r *raster) image(img *image.RGBA, b box) {
	dst := r.pixels(b)
	tmp := image.NewRGBA(dst)
	xdraw.NearestNeighbor.Scale(tmp, dst, img, img.Bounds(), draw.Src, nil)
	draw.Draw(r.img, dst.Intersect(r.cl), tmp, dst.Intersect(r.cl).Min, draw.Over)
}

// area returns the signed area of the polygon pts.
func area(pts []point) float64 {
	s := 0.0
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		s += p.x*q.y - q.x*p.y
	}
	return s / 2
}

func reversed(pts []point) []point {
	out := make([]point, len(pts))
	for i, p := range pts {
		out[len(pts)-1-i] = p
	}
	return out
}
