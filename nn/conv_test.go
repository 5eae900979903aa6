package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// testConvs returns convolutions with padding, strides, dilations and
// groups, and random kernels.
func testConvs(rng *rand.Rand) []*Conv2D {
	geo := []Conv2D{
		{InC: 1, InH: 5, InW: 5, OutC: 2, OutH: 5, OutW: 5, KH: 3, KW: 3, Stride: [2]int{1, 1}, Dil: [2]int{1, 1}, Pad: [2]int{1, 1}, Groups: 1},
		{InC: 2, InH: 6, InW: 7, OutC: 4, OutH: 3, OutW: 4, KH: 3, KW: 2, Stride: [2]int{2, 2}, Dil: [2]int{1, 1}, Pad: [2]int{1, 1}, Groups: 2},
		{InC: 3, InH: 7, InW: 6, OutC: 2, OutH: 3, OutW: 2, KH: 2, KW: 3, Stride: [2]int{1, 2}, Dil: [2]int{2, 1}, Pad: [2]int{0, 0}, Groups: 1},
		{InC: 2, InH: 4, InW: 4, OutC: 2, OutH: 4, OutW: 4, KH: 1, KW: 1, Stride: [2]int{1, 1}, Dil: [2]int{1, 1}, Pad: [2]int{0, 0}, Groups: 2},
		// padding larger than the kernel reaches: border outputs read only zeros
		{InC: 1, InH: 3, InW: 3, OutC: 1, OutH: 4, OutW: 5, KH: 2, KW: 2, Stride: [2]int{1, 1}, Dil: [2]int{1, 1}, Pad: [2]int{1, 2}, Groups: 1},
	}
	out := make([]*Conv2D, len(geo))
	for i, g := range geo {
		c := g
		c.Kernel = make([]float64, c.OutC*c.InC/c.Groups*c.KH*c.KW)
		for j := range c.Kernel {
			c.Kernel[j] = rng.NormFloat64()
		}
		out[i] = &c
	}
	return out
}

// TestConvApply checks Apply and ApplyTransposed against the dense matrix,
// built entry by entry from the definition.
func TestConvApply(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n, c := range testConvs(rng) {
		if err := c.Validate(); err != nil {
			t.Fatalf("conv %d: %v", n, err)
		}
		want := naiveDense(c)
		if got := c.Dense(); !closeAll(got.RawMatrix().Data, want, 0) {
			t.Fatalf("conv %d: Dense differs from the definition", n)
		}
		x, y := randVec(rng, c.In(), 1), randVec(rng, c.Out(), 1)
		ax, aty := make([]float64, c.Out()), make([]float64, c.In())
		c.Apply(ax, x)
		c.ApplyTransposed(aty, y)
		wx, wty := make([]float64, c.Out()), make([]float64, c.In())
		for i := range c.Out() {
			for j := range c.In() {
				wx[i] += want[i*c.In()+j] * x[j]
				wty[j] += want[i*c.In()+j] * y[i]
			}
		}
		if !closeAll(ax, wx, 1e-12) || !closeAll(aty, wty, 1e-12) {
			t.Errorf("conv %d: Apply or ApplyTransposed differs from the dense product", n)
		}
		for i := range c.Out() {
			row := make([]float64, c.In())
			c.AddRow(row, i, 2)
			for j, v := range row {
				if v != 2*want[i*c.In()+j] {
					t.Fatalf("conv %d: AddRow(%d) entry %d is %v, want %v", n, i, j, v, 2*want[i*c.In()+j])
				}
			}
		}
	}
}

// naiveDense returns the matrix of c from the definition of Conv2D.
func naiveDense(c *Conv2D) []float64 {
	w := make([]float64, c.Out()*c.In())
	cg, per := c.InC/c.Groups, c.OutC/c.Groups
	for m := range c.OutC {
		for oh := range c.OutH {
			for ow := range c.OutW {
				for cc := range cg {
					for th := range c.KH {
						for tw := range c.KW {
							ih := oh*c.Stride[0] - c.Pad[0] + th*c.Dil[0]
							iw := ow*c.Stride[1] - c.Pad[1] + tw*c.Dil[1]
							if ih < 0 || ih >= c.InH || iw < 0 || iw >= c.InW {
								continue
							}
							row := (m*c.OutH+oh)*c.OutW + ow
							col := ((m/per*cg+cc)*c.InH+ih)*c.InW + iw
							w[row*c.In()+col] += c.Kernel[((m*cg+cc)*c.KH+th)*c.KW+tw]
						}
					}
				}
			}
		}
	}
	return w
}

func closeAll(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*(1+math.Abs(b[i])) {
			return false
		}
	}
	return true
}

// TestConvLayerEval checks a structured layer's evaluation against its
// dense copy (Densify).
func TestConvLayerEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := testConvs(rng)[1]
	l, err := ConvLayer(c, randVec(rng, c.OutC, 1), Activation{Kind: ReLU})
	if err != nil {
		t.Fatal(err)
	}
	net := &Network{Layers: []Layer{l}}
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	dense, err := Densify(net, 1<<20)
	if err != nil || dense.Structured() {
		t.Fatalf("Densify: %v", err)
	}
	if _, err := Densify(net, 10); err == nil {
		t.Error("Densify of a matrix over the limit succeeded")
	}
	x := randVec(rng, c.In(), 1)
	a, _ := net.Eval(x)
	b, _ := dense.Eval(x)
	if !closeAll(a, b, 1e-12) {
		t.Errorf("structured %v, dense %v", a, b)
	}
	if net.NumParams() != len(c.Kernel)+c.Out() {
		t.Errorf("NumParams %d", net.NumParams())
	}
}

// TestConvValidate checks that malformed convolutions are errors, not
// panics, one case per field.
func TestConvValidate(t *testing.T) {
	good := func() *Conv2D {
		return &Conv2D{InC: 2, InH: 3, InW: 3, OutC: 2, OutH: 3, OutW: 3, KH: 1, KW: 1, Stride: [2]int{1, 1},
			Dil: [2]int{1, 1}, Groups: 1, Kernel: make([]float64, 4)}
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(c *Conv2D){
		"zero channels": func(c *Conv2D) { c.InC = 0 },
		"zero stride":   func(c *Conv2D) { c.Stride[1] = 0 },
		"negative pad":  func(c *Conv2D) { c.Pad[0] = -1 },
		"groups":        func(c *Conv2D) { c.Groups = 3 },
		"kernel length": func(c *Conv2D) { c.Kernel = c.Kernel[:3] },
		"NaN kernel":    func(c *Conv2D) { c.Kernel[2] = math.NaN() },
		"huge":          func(c *Conv2D) { c.InC, c.InH, c.InW = 1<<24, 1<<24, 1<<24 },
	} {
		c := good()
		mod(c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
