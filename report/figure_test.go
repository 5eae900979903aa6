package report

import (
	"bytes"
	"errors"
	"flag"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var figuresDir = flag.String("figures", "", "also write the test figures to this directory, to look at them")

// trunc is the paper's input quantiser with fb fractional bits.
func trunc(x float64, fb int) float64 { s := math.Ldexp(1, fb); return math.Trunc(x*s) / s }

// curveData mimics a network against its FB = 2 quantised copy on [-1, 1].
func curveData() Curve {
	const n = 801
	c := Curve{Title: "Demo network vs FB = 2 copy", X: make([]float64, n), Error: make([]float64, n), Bound: make([]float64, n)}
	for i := range n {
		x := -1 + 2*float64(i)/(n-1)
		q := trunc(x, 2)
		c.X[i] = x
		c.Error[i] = math.Abs(0.3*math.Sin(7*x)-0.3*math.Sin(7*q)) + 0.01*math.Abs(x)
		c.Bound[i] = math.Sqrt(0.01 + 0.2*x*x + 0.05*q*q + 3*(x-q)*(x-q))
	}
	c.WorstCase = 0.75
	for k := -4; k <= 4; k++ {
		c.Steps = append(c.Steps, float64(k)/4)
	}
	return c
}

func surfaceData() Surface {
	const n = 41
	s := Surface{X: make([]float64, n), Y: make([]float64, n), Bound: make([][]float64, n), Error: make([][]float64, n)}
	for i := range n {
		s.X[i] = -1 + 2*float64(i)/(n-1)
		s.Y[i] = s.X[i]
	}
	for i := range n {
		s.Bound[i], s.Error[i] = make([]float64, n), make([]float64, n)
		for j := range n {
			a, b := s.X[j], s.Y[i]
			s.Bound[i][j] = math.Sqrt(0.02 + 0.1*(a*a+b*b))
			s.Error[i][j] = math.Abs(0.1 * math.Sin(3*a) * math.Cos(2*b))
		}
	}
	return s
}

func ratioData() Ratios {
	rng := rand.New(rand.NewPCG(3, 4))
	r := Ratios{Bound: make([]float64, 500), Error: make([]float64, 500)}
	for k := range r.Bound {
		r.Bound[k] = 1
		r.Error[k] = math.Exp(-math.Abs(rng.NormFloat64()) - 0.3)
	}
	r.Error[7] = 0
	return r
}

func sweepData() Sweep {
	s := Sweep{Title: "sin3x_relu: bound by bit width", Target: 1e-2, Chosen: 7}
	se := SweepSeries{}
	for fb := 1; fb <= 12; fb++ {
		se.X = append(se.X, float64(fb))
		se.Bound = append(se.Bound, 3*math.Ldexp(1, -fb))
		se.Error = append(se.Error, 0.8*math.Ldexp(1, -fb)*(1+0.2*math.Sin(float64(fb))))
	}
	se.Bound[2] = math.NaN() // a level that failed to certify
	s.Series = []SweepSeries{se}
	return s
}

func TestFigures(t *testing.T) {
	cases := []struct {
		name string
		make func() (*Figure, error)
	}{
		{"curve", func() (*Figure, error) { return ErrorCurve(curveData()) }},
		{"curve-no-steps", func() (*Figure, error) {
			c := curveData()
			c.Steps, c.WorstCase, c.Bound = nil, 0, nil
			return ErrorCurve(c)
		}},
		{"tightness", func() (*Figure, error) { return TightnessMap(surfaceData()) }},
		{"histogram", func() (*Figure, error) { return RatioHistogram(ratioData()) }},
		{"sweep", func() (*Figure, error) { return SweepFigure(sweepData()) }},
		{"sweep-two", func() (*Figure, error) {
			s := sweepData()
			s2 := s.Series[0]
			s2.Name = "pruned 25%"
			s2.Bound = append([]float64(nil), s2.Bound...)
			for i := range s2.Bound {
				s2.Bound[i] *= 2
			}
			s.Series[0].Name = "unpruned"
			s.Series = append(s.Series, s2)
			s.Target, s.Chosen = 0, math.NaN()
			return SweepFigure(s)
		}},
	}
	dir := *figuresDir
	if dir == "" {
		dir = t.TempDir()
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := c.make()
			if err != nil {
				t.Fatal(err)
			}
			pngPath := filepath.Join(dir, c.name+".png")
			if err := f.Save(pngPath); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(pngPath)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if w := img.Bounds().Dx(); w < 800 {
				t.Errorf("PNG is %d pixels wide", w)
			}
			if n := inkPixels(img); n < img.Bounds().Dx()*img.Bounds().Dy()/100 {
				t.Errorf("PNG has only %d pixels that are not white", n)
			}
			var again bytes.Buffer
			if err := f.Encode(&again, "png"); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), b) {
				t.Error("the same figure encoded twice gives different PNG bytes")
			}
			svgPath := filepath.Join(dir, c.name+".SVG")
			if err := f.Save(svgPath); err != nil {
				t.Fatal(err)
			}
			b, err = os.ReadFile(svgPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b[:min(len(b), 200)], []byte("<svg")) {
				t.Errorf("SVG starts %q", b[:min(len(b), 80)])
			}
			if !bytes.HasSuffix(b, []byte("</svg>\n")) || !bytes.Contains(b, []byte("<text")) {
				t.Error("SVG is not closed or has no text")
			}
			again.Reset()
			if err := f.Encode(&again, "svg"); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), b) {
				t.Error("the same figure encoded twice gives different SVG bytes")
			}
		})
	}
}

// inkPixels counts the pixels of img that are not white.
func inkPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r&g&bl != 0xffff {
				n++
			}
		}
	}
	return n
}

func TestFigureErrors(t *testing.T) {
	dir := t.TempDir()
	good, err := ErrorCurve(curveData())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fig.pdf", "fig", "fig.png.txt"} {
		if err := good.Save(filepath.Join(dir, name)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want ErrFormat", name, err)
		}
		if err := CheckPath(name); !errors.Is(err, ErrFormat) {
			t.Errorf("CheckPath(%s): %v", name, err)
		}
	}
	// A directory that does not exist: error, nothing written.
	if err := good.Save(filepath.Join(dir, "no", "fig.png")); err == nil {
		t.Error("saved into a missing directory")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}

	zeros := curveData()
	for i := range zeros.Error {
		zeros.Error[i], zeros.Bound[i] = 0, 0
	}
	zeros.WorstCase = 0
	short := curveData()
	short.Error = short.Error[:3]
	flat := surfaceData()
	for i := range flat.Error {
		for j := range flat.Error[i] {
			flat.Error[i][j] = 0
		}
	}
	ragged := surfaceData()
	ragged.Bound[3] = ragged.Bound[3][:2]
	cases := []struct {
		name string
		err  error
	}{
		{"curve all zero", func() error { _, err := ErrorCurve(zeros); return err }()},
		{"curve lengths", func() error { _, err := ErrorCurve(short); return err }()},
		{"curve one point", func() error { _, err := ErrorCurve(Curve{X: []float64{0}, Error: []float64{1}}); return err }()},
		{"surface zero error", func() error { _, err := TightnessMap(flat); return err }()},
		{"surface ragged", func() error { _, err := TightnessMap(ragged); return err }()},
		{"surface small", func() error { _, err := TightnessMap(Surface{X: []float64{0}, Y: []float64{0}}); return err }()},
		{"histogram empty", func() error { _, err := RatioHistogram(Ratios{}); return err }()},
		{"histogram lengths", func() error { _, err := RatioHistogram(Ratios{Bound: []float64{1}}); return err }()},
		{"sweep empty", func() error { _, err := SweepFigure(Sweep{}); return err }()},
		{"sweep nothing positive", func() error {
			_, err := SweepFigure(Sweep{Series: []SweepSeries{{X: []float64{1}, Bound: []float64{math.NaN()}, Error: []float64{0}}}})
			return err
		}()},
	}
	for _, c := range cases {
		if !errors.Is(c.err, ErrData) {
			t.Errorf("%s: error %v, want ErrData", c.name, c.err)
		}
		if c.err != nil && !strings.HasPrefix(c.err.Error(), "report: ") {
			t.Errorf("%s: error %q lacks the package prefix", c.name, c.err)
		}
	}
}

func TestLogTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		labels string
	}{
		{0.003, 2, "0.01 0.1 1"},
		{1.5, 8, "2 3 5"},
		{1e-9, 1e3, "1e-9 1e-7 1e-5 0.001 0.1 10 1000"},
	}
	for _, c := range cases {
		var got []string
		for _, tk := range logTicks(c.lo, c.hi) {
			if tk.label != "" {
				got = append(got, tk.label)
			}
			if tk.value < c.lo || tk.value > c.hi {
				t.Errorf("[%v, %v]: tick %v outside", c.lo, c.hi, tk.value)
			}
		}
		if s := strings.Join(got, " "); s != c.labels {
			t.Errorf("[%v, %v]: labels %q, want %q", c.lo, c.hi, s, c.labels)
		}
	}
	if logTicks(0, 1) != nil {
		t.Error("ticks for a range starting at 0")
	}
}

func TestLinTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		labels string
	}{
		{-1, 1, "-1 -0.5 0 0.5 1"},
		{0, 10, "0 2 4 6 8 10"},
		{-0.3, 0.7, "-0.2 0 0.2 0.4 0.6"},
		{0.6, 0.68, "0.6 0.62 0.64 0.66 0.68"},
	}
	for _, c := range cases {
		var got []string
		for _, tk := range linTicks(c.lo, c.hi) {
			if tk.label != "" {
				got = append(got, tk.label)
			}
		}
		if s := strings.Join(got, " "); s != c.labels {
			t.Errorf("[%v, %v]: labels %q, want %q", c.lo, c.hi, s, c.labels)
		}
	}
}

func TestDashed(t *testing.T) {
	// A 100-point line, bent at 50, in dashes of 6 on and 3 off: 12
	// dashes, 11 whole and the last cut to 1 point.
	pts := []point{{0, 0}, {50, 0}, {50, 50}}
	pieces := dashed(pts, []float64{6, 3})
	if len(pieces) != 12 {
		t.Fatalf("%d dashes, want 12", len(pieces))
	}
	on := 0.0
	for _, p := range pieces {
		for i := 1; i < len(p); i++ {
			on += math.Hypot(p[i].x-p[i-1].x, p[i].y-p[i-1].y)
		}
	}
	if math.Abs(on-67) > 1e-9 {
		t.Errorf("dashes cover %v points, want 67", on)
	}
	if got := dashed(pts, nil); len(got) != 1 || len(got[0]) != 3 {
		t.Errorf("no pattern: %v, want the line itself", got)
	}
}

func TestCoolWarm(t *testing.T) {
	if c := coolWarm(math.NaN(), 0, 1); c != (color.Gray{Y: 0xA0}) {
		t.Errorf("NaN: %v, want grey", c)
	}
	lo, mid, hi := coolWarm(-5, 0, 1), coolWarm(0.5, 0, 1), coolWarm(7, 0, 1)
	if lo != (color.RGBA{59, 76, 192, 255}) || mid != (color.RGBA{221, 221, 221, 255}) || hi != (color.RGBA{180, 4, 38, 255}) {
		t.Errorf("ends and middle: %v %v %v", lo, mid, hi)
	}
}
