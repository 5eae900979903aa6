package align

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// scrambled returns a copy of f with every parameter perturbed by 1e-4
// times a standard normal draw, the neurons listed in pruned[k] of hidden
// layer k zeroed (row, bias and outgoing column), and then each hidden
// layer's neurons shuffled.
func scrambled(f *nn.Network, rng *rand.Rand, pruned map[int][]int, shuffle bool) *nn.Network {
	g := f.Clone()
	for _, l := range g.Layers {
		r, c := l.W.Dims()
		for i := range r {
			for j := range c {
				l.W.Set(i, j, l.W.At(i, j)+1e-4*rng.NormFloat64())
			}
			l.B[i] += 1e-4 * rng.NormFloat64()
		}
	}
	for k, js := range pruned {
		for _, j := range js {
			g.Layers[k].W.SetRow(j, make([]float64, g.Layers[k].In()))
			g.Layers[k].B[j] = 0
			g.Layers[k+1].W.SetCol(j, make([]float64, g.Layers[k+1].Out()))
		}
	}
	if shuffle {
		for k := range len(g.Layers) - 1 {
			reindex(g, k, rng.Perm(g.Layers[k].Out()))
		}
	}
	return g
}

// scaled returns s v.
func scaled(v []float64, s float64) []float64 {
	for i := range v {
		v[i] *= s
	}
	return v
}

// maxOutputDiff returns the largest relative difference between the
// outputs of a and b on random points of [-1, 1]^n.
func maxOutputDiff(t *testing.T, a, b *nn.Network) float64 {
	rng := rand.New(rand.NewPCG(9, 9))
	worst := 0.0
	for range 200 {
		x := make([]float64, a.InputSize())
		for i := range x {
			x[i] = 2*rng.Float64() - 1
		}
		ya, err := a.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		yb, err := b.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ya {
			worst = max(worst, math.Abs(ya[i]-yb[i])/max(1, math.Abs(ya[i])))
		}
	}
	return worst
}

// outputWidth returns the sum of the widths of the enclosures of
// g_j(x) - f_j(x) over [-1, 1]^n.
func outputWidth(t *testing.T, f, g *nn.Network) float64 {
	n := f.InputSize()
	box := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		box.Lo[i], box.Hi[i] = -1, 1
	}
	pb, err := bounds.Pair(f, g, spec.Inputs{Box: box, Pairing: spec.SameInput}, bounds.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	w := 0.0
	for _, iv := range pb.Output {
		w += iv.Width()
	}
	return w
}

func TestAlignRecoversPermutation(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 7))
		f, err := randnet.New(rng, []int{5, 24, 20, 16, 3})
		if err != nil {
			t.Fatal(err)
		}
		// The pruned neurons are those of small weight, as magnitude
		// pruning would choose them: their outgoing weights in f are
		// scaled by 1e-3.
		pruned := map[int][]int{0: {3, 11}, 1: {0}, 2: {5, 6, 7}}
		for k, js := range pruned {
			for _, j := range js {
				f.Layers[k+1].W.SetCol(j, scaled(mat.Col(nil, j, f.Layers[k+1].W), 1e-3))
			}
		}
		g := scrambled(f, rng, pruned, true)
		h, rep, err := Align(f, g, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if rep.Refused != "" || !rep.Changed || rep.Exact {
			t.Fatalf("seed %d: %v", seed, rep)
		}
		for k, l := range rep.Layers {
			want := f.Layers[k].Out() - len(pruned[k])
			if l.Matched != want || l.Unmatched != len(pruned[k]) || l.Dead != len(pruned[k]) || l.Moved == 0 {
				t.Errorf("seed %d layer %d: %+v, want %d matched", seed, k, l, want)
			}
		}
		dead := map[[2]int]bool{}
		for k, js := range pruned {
			for _, j := range js {
				dead[[2]int{k, j}] = true
			}
		}
		// Neuron i of the aligned g is f's neuron i, perturbed.
		for k := range len(f.Layers) - 1 {
			for i := range f.Layers[k].Out() {
				d := math.Abs(h.Layers[k].B[i] - f.Layers[k].B[i])
				row := h.Layers[k].W.RawRowView(i)
				for j, v := range f.Layers[k].W.RawRowView(i) {
					if !dead[[2]int{k - 1, j}] {
						d = max(d, math.Abs(row[j]-v))
					}
				}
				if dead[[2]int{k, i}] != zeroRow(h.Layers[k].W, i) || (!dead[[2]int{k, i}] && d > 1e-3) {
					t.Errorf("seed %d layer %d neuron %d: distance %v to f's, dead %v", seed, k, i, d, dead[[2]int{k, i}])
				}
			}
		}
		if d := maxOutputDiff(t, g, h); d > 1e-12 {
			t.Errorf("seed %d: aligned g differs from g by %v", seed, d)
		}
		before, after := outputWidth(t, f, g), outputWidth(t, f, h)
		t.Logf("seed %d: %v; output difference width summed over outputs: %.4g unaligned, %.4g aligned (%.0fx tighter)",
			seed, rep, before, after, before/after)
		if after > before/10 {
			t.Errorf("seed %d: aligned width %v is not far below %v", seed, after, before)
		}
	}
}

func TestAlignKeepsIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	f, _ := randnet.New(rng, []int{3, 10, 10, 2})
	g := scrambled(f, rng, map[int][]int{1: {4}}, false)
	h, rep, err := Align(f, g, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if h != g || rep.Changed || rep.Refused != "" {
		t.Fatalf("identity not kept: %v", rep)
	}
	for _, l := range rep.Layers {
		if l.Moved != 0 || l.Cost != l.IdentityCost {
			t.Errorf("%+v", l)
		}
	}
	// f against itself: nothing to do either.
	if h, rep, _ := Align(f, f, DefaultOptions()); h != f || rep.Changed {
		t.Errorf("f against f: %v", rep)
	}
}

// dropNeuron returns n with neuron j of hidden layer k removed.
func dropNeuron(n *nn.Network, k, j int) *nn.Network {
	var keep []int
	for i := range n.Layers[k].Out() {
		if i != j {
			keep = append(keep, i)
		}
	}
	h := n.Clone()
	reindex(h, k, keep)
	return h
}

func TestAlignWidths(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	f, _ := randnet.New(rng, []int{4, 12, 9, 2})

	// g narrower: f's neuron 3 of layer 0 was removed; g is padded.
	g := dropNeuron(scrambled(f, rng, nil, false), 0, 3)
	h, rep, err := Align(f, g, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	l := rep.Layers[0]
	if l.Padded != 1 || l.Matched != 11 || l.Unmatched != 1 || l.Moved != 8 || h.Layers[0].Out() != 12 || !zeroRow(h.Layers[0].W, 3) {
		t.Fatalf("narrower: %v %+v", rep, l)
	}
	if d := maxOutputDiff(t, g, h); d > 1e-12 {
		t.Errorf("padded g differs by %v", d)
	}

	// g wider with a dead neuron: removed exactly.
	wide := f.Clone()
	reindex(wide, 1, []int{0, 1, 2, -1, 3, 4, 5, 6, 7, 8})
	h, rep, err = Align(f, wide, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if l := rep.Layers[1]; l.Removed != 1 || l.Moved != 0 || h.Layers[1].Out() != 9 || !rep.Exact || rep.MaxDiff != 0 {
		t.Fatalf("wider, dead: %v", rep)
	}

	// g wider with live neurons: left unaligned, and so is the next layer.
	live := f.Clone()
	live.Layers[0] = nn.Layer{W: mat.NewDense(13, 4, nil), B: make([]float64, 13), Act: f.Layers[0].Act}
	live.Layers[0].W.Apply(func(i, j int, _ float64) float64 { return float64(i + j + 1) }, live.Layers[0].W)
	live.Layers[1] = nn.Layer{W: mat.NewDense(9, 13, nil), B: make([]float64, 9), Act: f.Layers[1].Act}
	live.Layers[1].W.Apply(func(i, j int, _ float64) float64 { return 1 }, live.Layers[1].W)
	h, rep, err = Align(f, live, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if h != live || rep.Changed || rep.Layers[0].Reason == "" || rep.Layers[1].Reason == "" {
		t.Fatalf("wider, live: %v", rep)
	}
	if s := rep.String(); !strings.Contains(s, "unaligned: g has 1 more neurons than f but only 0 can be removed exactly") ||
		!strings.Contains(s, "unaligned: its inputs are not aligned (f's layer takes 12, g's 13)") {
		t.Errorf("report %s", s)
	}
}

func TestAlignRefusesAndErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	f, _ := randnet.New(rng, []int{3, 8, 2})
	deep, _ := randnet.New(rng, []int{3, 8, 8, 2})
	h, rep, err := Align(f, deep, DefaultOptions())
	if err != nil || h != deep || !strings.Contains(rep.Refused, "f has 2 layers and g 3") {
		t.Errorf("depths: %v %v", rep, err)
	}
	other, _ := randnet.New(rng, []int{4, 8, 2})
	if _, _, err := Align(f, other, DefaultOptions()); !errors.Is(err, nn.ErrDimension) {
		t.Errorf("input sizes: %v", err)
	}
	if _, _, err := Align(f, &nn.Network{}, DefaultOptions()); err == nil {
		t.Error("empty g: no error")
	}
	bad := DefaultOptions()
	bad.Lo, bad.Hi = []float64{0}, []float64{1}
	if _, _, err := Align(f, f, bad); !errors.Is(err, nn.ErrDimension) {
		t.Errorf("box: %v", err)
	}

	// The check refuses a network that is not g's function.
	g := scrambled(f, rng, nil, true)
	wrong := g.Clone()
	wrong.Layers[1].B[0] += 1e-9
	var r Report
	if err := check(g, wrong, DefaultOptions(), &r); err == nil {
		t.Error("check accepted a different network")
	}
	r = Report{Exact: true}
	same := g.Clone()
	reindex(same, 0, rng.Perm(8))
	if err := check(g, same, DefaultOptions(), &r); err == nil {
		t.Error("exact check accepted a reordered sum (or the permutation was the identity)")
	}
	r = Report{}
	if err := check(g, same, DefaultOptions(), &r); err != nil || r.Checked != 1+8+256 {
		t.Errorf("rounding check: %v, %d points", err, r.Checked)
	}
}

func TestReportJSON(t *testing.T) {
	rep := Report{Layers: []LayerReport{{Layer: 0, Matched: 10, Unmatched: 2, Moved: 7, Dead: 2}}, Changed: true}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"aligned":[{"layer":0,"matched":10,"unmatched":2,"moved":7,"dead":2,"cost":0,"identity_cost":0}],"changed":true,"exact":false,"checked":0,"max_diff":0}`; string(b) != want {
		t.Errorf("json\n got %s\nwant %s", b, want)
	}
	if s, want := rep.String(), "aligned: {0: 10 matched, 2 unmatched, 7 moved}"; s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
}

func BenchmarkAlign(b *testing.B) {
	for _, width := range []int{100, 300} {
		rng := rand.New(rand.NewPCG(1, uint64(width)))
		f, _ := randnet.New(rng, []int{5, width, width, 5})
		g := scrambled(f, rng, nil, true)
		b.Run(fmt.Sprint("width=", width), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Align(f, g, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
