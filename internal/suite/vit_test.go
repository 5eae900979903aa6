package suite

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestClimbError checks bench vit's own search on a random attention
// block and its FB-6 copy: it finds a positive error no smaller than the
// error at the box's centre, and writeViT prints the median of the ratios.
func TestClimbError(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	f := randnet.Attention(r, 3, 8, 2)
	o := quantise.DefaultOptions()
	o.Weights.FracBits, o.Biases.FracBits = 6, 6
	g, err := quantise.Graph(f, o)
	if err != nil {
		t.Fatal(err)
	}
	b := spec.Box{Lo: make([]float64, 24), Hi: make([]float64, 24)}
	mid := make([]float64, 24)
	for i := range b.Lo {
		mid[i] = r.NormFloat64()
		b.Lo[i], b.Hi[i] = mid[i]-0.05, mid[i]+0.05
	}
	found := climbError(f, g, b, 1)
	if at := l2Diff(t, f, g, mid); !(found >= at && found > 0) {
		t.Errorf("climb found %v, the centre's error is %v", found, at)
	}
	var out bytes.Buffer
	rows := []vitRow{{copy: "fb8", bound: 3, observed: 1, own: 0.5}, {copy: "fb8", bound: 4, observed: 1, own: 2},
		{copy: "fb8", bound: 2.5, observed: 1, own: 1}, {copy: "fb8", bound: 9, observed: 1, own: 1}}
	if err := writeViT(&out, rows, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "fb8: median bound/found 2.75 over 4 balls") {
		t.Errorf("output:\n%s", out.String())
	}
}

// l2Diff returns ||f(x) - g(x)||_2.
func l2Diff(t *testing.T, f, g *nn.Graph, x []float64) float64 {
	y1, err1 := f.Eval(x)
	y2, err2 := g.Eval(x)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	s := 0.0
	for j := range y1 {
		s += (y1[j] - y2[j]) * (y1[j] - y2[j])
	}
	return math.Sqrt(s)
}
