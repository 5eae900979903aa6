package cbf

import (
	"bufio"
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/sdp"
)

// cbfProblem is what a CBF file of Write's subset says.
type cbfProblem struct {
	nvar    int
	psd     []int
	rows    int
	obj     map[int]float64
	a       map[[2]int]float64    // row, var
	b       map[int]float64       // row
	h       map[[4]int]float64    // con, var, i, j (i >= j)
	d       map[[3]int]float64    // con, i, j
	keys    []string              // in file order
	entries map[string][][]string // the data lines of each keyword
}

// parseCBF reads the keywords Write uses, checking counts.
func parseCBF(t *testing.T, text string) *cbfProblem {
	t.Helper()
	p := &cbfProblem{obj: map[int]float64{}, a: map[[2]int]float64{}, b: map[int]float64{},
		h: map[[4]int]float64{}, d: map[[3]int]float64{}, entries: map[string][][]string{}}
	var lines [][]string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, strings.Fields(l))
	}
	atoi := func(s string) int {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("bad integer %q", s)
		}
		return v
	}
	atof := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("bad number %q", s)
		}
		return v
	}
	for i := 0; i < len(lines); {
		key := lines[i][0]
		p.keys = append(p.keys, key)
		i++
		switch key {
		case "VER", "OBJSENSE":
			i++
		case "VAR", "CON":
			n, k := atoi(lines[i][0]), atoi(lines[i][1])
			if k != 1 {
				t.Fatalf("%s with %d cones", key, k)
			}
			cone := lines[i+1]
			if atoi(cone[1]) != n {
				t.Fatalf("%s: cone of %s for %d", key, cone[1], n)
			}
			if key == "VAR" {
				p.nvar = n
				if cone[0] != "F" {
					t.Fatalf("variables in cone %s", cone[0])
				}
			} else {
				p.rows = n
				if cone[0] != "L+" {
					t.Fatalf("constraints in cone %s", cone[0])
				}
			}
			i += 2
		case "PSDCON":
			n := atoi(lines[i][0])
			for k := range n {
				p.psd = append(p.psd, atoi(lines[i+1+k][0]))
			}
			i += 1 + n
		default:
			n := atoi(lines[i][0])
			data := lines[i+1 : i+1+n]
			p.entries[key] = data
			for _, f := range data {
				switch key {
				case "OBJACOORD":
					p.obj[atoi(f[0])] += atof(f[1])
				case "ACOORD":
					p.a[[2]int{atoi(f[0]), atoi(f[1])}] += atof(f[2])
				case "BCOORD":
					p.b[atoi(f[0])] += atof(f[1])
				case "HCOORD":
					k := [4]int{atoi(f[0]), atoi(f[1]), atoi(f[2]), atoi(f[3])}
					if k[2] < k[3] {
						t.Fatalf("HCOORD entry above the diagonal: %v", f)
					}
					p.h[k] += atof(f[4])
				case "DCOORD":
					k := [3]int{atoi(f[0]), atoi(f[1]), atoi(f[2])}
					if k[1] < k[2] {
						t.Fatalf("DCOORD entry above the diagonal: %v", f)
					}
					p.d[k] += atof(f[3])
				default:
					t.Fatalf("unexpected keyword %s", key)
				}
			}
			i += 1 + n
		}
	}
	return p
}

// dense returns the blocks of sum_i x_i F_i - F_0 of p (factors included).
func denseSlack(p *sdp.Problem, x []float64) [][]float64 {
	out := make([][]float64, len(p.Blocks))
	for b, blk := range p.Blocks {
		out[b] = make([]float64, blk.Size*blk.Size)
	}
	add := func(coef float64, m sdp.Matrix, fs []sdp.Factor) {
		for _, e := range m {
			n := p.Blocks[e.Block].Size
			out[e.Block][e.I*n+e.J] += coef * e.V
			if e.I != e.J {
				out[e.Block][e.J*n+e.I] += coef * e.V
			}
		}
		for _, f := range fs {
			n := p.Blocks[f.Block].Size
			for a, i := range f.U.Index {
				for c, j := range f.U.Index {
					out[f.Block][i*n+j] += coef * f.D * f.U.Value[a] * f.U.Value[c]
				}
			}
		}
	}
	for i := range p.F {
		coef := -1.0
		if i > 0 {
			coef = x[i-1]
		}
		var fs []sdp.Factor
		if i < len(p.Factors) {
			fs = p.Factors[i]
		}
		add(coef, p.F[i], fs)
	}
	return out
}

func TestWriteCBF(t *testing.T) {
	p := &sdp.Problem{
		Blocks: []sdp.Block{{Size: 3}, {Size: 2, Diagonal: true}, {Size: 2}},
		C:      []float64{1, 0.5, 0},
		F: []sdp.Matrix{
			{{Block: 0, I: 0, J: 1, V: 2}, {Block: 1, I: 1, J: 1, V: -3}, {Block: 2, I: 1, J: 1, V: 0.25}},
			{{Block: 0, I: 0, J: 0, V: 1}, {Block: 1, I: 0, J: 0, V: 1}},
			{{Block: 0, I: 2, J: 2, V: 1}, {Block: 2, I: 0, J: 1, V: -1}},
			{{Block: 1, I: 1, J: 1, V: 1}},
		},
		Factors: [][]sdp.Factor{nil, nil, {{Block: 0, D: -0.5, U: sdp.SparseVec{Index: []int{0, 2}, Value: []float64{1, 2}}}}, nil},
	}
	var b bytes.Buffer
	if err := Write(&b, p, []string{"first line", "second"}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.HasPrefix(text, "# first line\n# second\nVER\n3\n") {
		t.Errorf("file starts %q", text[:min(len(text), 40)])
	}
	c := parseCBF(t, text)
	wantKeys := "VER OBJSENSE VAR PSDCON CON OBJACOORD ACOORD BCOORD HCOORD DCOORD"
	if got := strings.Join(c.keys, " "); got != wantKeys {
		t.Errorf("keywords %q, want %q", got, wantKeys)
	}
	if c.nvar != 3 || c.rows != 2 || len(c.psd) != 2 || c.psd[0] != 3 || c.psd[1] != 2 {
		t.Fatalf("structure: %d vars, %d rows, PSD %v", c.nvar, c.rows, c.psd)
	}
	for i, ci := range p.C {
		if c.obj[i] != ci {
			t.Errorf("objective %d = %v, want %v", i, c.obj[i], ci)
		}
	}
	// The CBF constraints at random x must equal the SDPA slack blocks.
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5 {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		want := denseSlack(p, x)
		psdBlocks := []int{0, 2}
		for con, blk := range psdBlocks {
			n := p.Blocks[blk].Size
			for i := range n {
				for j := range i + 1 {
					g := c.d[[3]int{con, i, j}]
					for v := range x {
						g += x[v] * c.h[[4]int{con, v, i, j}]
					}
					if w := want[blk][i*n+j]; math.Abs(g-w) > 1e-12 {
						t.Errorf("PSD %d (%d,%d) = %v, want %v", con, i, j, g, w)
					}
				}
			}
		}
		for row := range 2 {
			g := c.b[row]
			for v := range x {
				g += x[v] * c.a[[2]int{row, v}]
			}
			if w := want[1][row*2+row]; math.Abs(g-w) > 1e-12 {
				t.Errorf("row %d = %v, want %v", row, g, w)
			}
		}
	}
}

func TestWriteCBFInvalid(t *testing.T) {
	p := &sdp.Problem{Blocks: []sdp.Block{{Size: 1}}, C: []float64{1}, F: []sdp.Matrix{nil}}
	var b bytes.Buffer
	if err := Write(&b, p, nil); err == nil {
		t.Error("no error for a problem with too few matrices")
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q for an invalid problem", b.String())
	}
}
