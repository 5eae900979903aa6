package onnx

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// randNet returns a network with the given layer sizes and activations;
// some parameters are -0 and some are exact zeros, to test bit-exactness.
func randNet(rng *rand.Rand, sizes []int, acts []nn.Activation) *nn.Network {
	n := &nn.Network{}
	for k, a := range acts {
		w := mat.NewDense(sizes[k+1], sizes[k], nil)
		b := make([]float64, sizes[k+1])
		param := func() float64 {
			switch rng.IntN(10) {
			case 0:
				return math.Copysign(0, -1)
			case 1:
				return 0
			}
			return rng.NormFloat64()
		}
		for i := range sizes[k+1] {
			for j := range sizes[k] {
				w.Set(i, j, param())
			}
			b[i] = param()
		}
		n.Layers = append(n.Layers, nn.Layer{W: w, B: b, Act: a})
	}
	return n
}

// allActivations are activations of every kind, with float32 and
// non-float32 parameters.
var allActivations = []nn.Activation{
	{Kind: nn.ReLU},
	{Kind: nn.Tanh},
	{Kind: nn.Sigmoid},
	{Kind: nn.LeakyReLU, Alpha: 0.25},
	{Kind: nn.LeakyReLU, Alpha: 0.01}, // not a float32
	{Kind: nn.ELU, Alpha: 1},
	{Kind: nn.ELU, Alpha: 0.3}, // not a float32
	{Kind: nn.HardTanh, Lo: -1, Hi: 1},
	{Kind: nn.HardTanh, Lo: -0.1, Hi: 2.7},
	{Kind: nn.HardTanh, Lo: 0.5, Hi: 0.5},
}

// sameBits reports whether a and b are bit-for-bit equal.
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// requireIdentical fails t unless got equals want bit for bit.
func requireIdentical(t *testing.T, got, want *nn.Network) {
	t.Helper()
	if len(got.Layers) != len(want.Layers) {
		t.Fatalf("got %d layers, want %d", len(got.Layers), len(want.Layers))
	}
	for k, l := range want.Layers {
		g := got.Layers[k]
		if g.Act != l.Act {
			t.Fatalf("layer %d: activation %+v, want %+v", k, g.Act, l.Act)
		}
		if l.Conv != nil {
			requireSameConv(t, k, g, l)
			continue
		}
		r, c := l.W.Dims()
		if gr, gc := g.W.Dims(); gr != r || gc != c {
			t.Fatalf("layer %d: weight %dx%d, want %dx%d", k, gr, gc, r, c)
		}
		for i := range r {
			for j := range c {
				if !sameBits(g.W.At(i, j), l.W.At(i, j)) {
					t.Fatalf("layer %d weight (%d,%d): %v, want %v", k, i, j, g.W.At(i, j), l.W.At(i, j))
				}
			}
			if !sameBits(g.B[i], l.B[i]) {
				t.Fatalf("layer %d bias %d: %v, want %v", k, i, g.B[i], l.B[i])
			}
		}
		if !g.Pre.Equal(l.Pre) || !g.Post.Equal(l.Post) || !g.Int.Equal(l.Int) {
			t.Fatalf("layer %d: quantisers %+v %+v %+v, want %+v %+v %+v", k, g.Pre, g.Post, g.Int, l.Pre, l.Post, l.Int)
		}
	}
	if !got.Input.Equal(want.Input) {
		t.Fatalf("input quantiser %+v, want %+v", got.Input, want.Input)
	}
}

// requireSameConv fails t unless the structured layer g equals l bit for
// bit.
func requireSameConv(t *testing.T, k int, g, l nn.Layer) {
	t.Helper()
	if g.Conv == nil || !g.Conv.SameGeometry(l.Conv) {
		t.Fatalf("layer %d: convolution %+v, want %+v", k, g.Conv, l.Conv)
	}
	for i, v := range l.Conv.Kernel {
		if !sameBits(g.Conv.Kernel[i], v) {
			t.Fatalf("layer %d kernel value %d: %v, want %v", k, i, g.Conv.Kernel[i], v)
		}
	}
	for i, v := range l.B {
		if !sameBits(g.B[i], v) {
			t.Fatalf("layer %d bias %d: %v, want %v", k, i, g.B[i], v)
		}
	}
}

// roundTrip writes n and reads it back.
func roundTrip(t *testing.T, n *nn.Network) (*nn.Network, *Info, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, n); err != nil {
		t.Fatal(err)
	}
	got, info, err := Decode(buf.Bytes(), "written")
	if err != nil {
		t.Fatal(err)
	}
	return got, info, buf.Bytes()
}

func TestWriteRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	id := nn.Activation{Kind: nn.Identity}
	tests := []struct {
		name  string
		sizes []int
		acts  []nn.Activation
	}{
		{"single affine", []int{3, 2}, []nn.Activation{id}},
		{"single relu", []int{1, 4}, []nn.Activation{{Kind: nn.ReLU}}},
		{"paper shape", []int{1, 10, 10, 1}, []nn.Activation{{Kind: nn.ReLU}, {Kind: nn.ReLU}, id}},
		{"every activation", []int{4, 5, 6, 5, 4, 6, 3, 5, 4, 3, 2, 2},
			append(append([]nn.Activation{}, allActivations...), id)},
		{"activation last", []int{2, 3, 2}, []nn.Activation{{Kind: nn.Tanh}, {Kind: nn.HardTanh, Lo: -2, Hi: 3}}},
		{"elu last", []int{2, 3}, []nn.Activation{{Kind: nn.ELU, Alpha: 0.3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := randNet(rng, tc.sizes, tc.acts)
			got, info, _ := roundTrip(t, n)
			requireIdentical(t, got, n)
			if info.IRVersion != writeIRVersion || len(info.Opsets) != 1 || info.Opsets[0].Version != writeOpset {
				t.Errorf("info %+v", info)
			}
			if s := info.Input.Shape.String(); s != "[N,"+itoa(tc.sizes[0])+"]" {
				t.Errorf("input shape %s", s)
			}
		})
	}
}

func itoa(i int) string { return Dim{Size: int64(i)}.String() }

func TestWriteFusesHiddenAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	id := nn.Activation{Kind: nn.Identity}
	n := randNet(rng, []int{3, 4, 5, 2}, []nn.Activation{{Kind: nn.ReLU}, id, {Kind: nn.Sigmoid}})
	got, _, _ := roundTrip(t, n)
	if len(got.Layers) != 2 {
		t.Fatalf("got %d layers, want 2 (the affine layer fused)", len(got.Layers))
	}
	for range 20 {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		a, _ := n.Eval(x)
		b, _ := got.Eval(x)
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-12 {
				t.Fatalf("output %d: %v, want %v", i, b[i], a[i])
			}
		}
	}
}

func TestWriteInvalid(t *testing.T) {
	n := randNet(rand.New(rand.NewPCG(1, 1)), []int{2, 2}, []nn.Activation{{Kind: nn.ReLU}})
	n.Layers[0].B[1] = math.NaN()
	if err := Write(&bytes.Buffer{}, n); !errors.Is(err, nn.ErrNotFinite) {
		t.Fatalf("got %v, want ErrNotFinite", err)
	}
	if err := Write(&bytes.Buffer{}, &nn.Network{}); !errors.Is(err, nn.ErrDimension) {
		t.Fatalf("got %v, want ErrDimension", err)
	}
}

// onnxCheck runs Debian's onnx checker (full_check) on the files, or
// skips t when python3 or its onnx module is absent.
func onnxCheck(t *testing.T, paths ...string) {
	t.Helper()
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skip("no " + python)
	}
	if err := exec.Command(python, "-c", "import onnx").Run(); err != nil {
		t.Skip("python3 has no onnx module")
	}
	const script = `import onnx, sys
bad = 0
for p in sys.argv[1:]:
    try:
        onnx.checker.check_model(onnx.load(p), full_check=True)
    except Exception as e:
        print(p, e); bad += 1
sys.exit(bad)`
	out, err := exec.Command(python, append([]string{"-c", script}, paths...)...).CombinedOutput()
	if err != nil {
		t.Errorf("onnx checker rejects files: %v\n%s", err, out)
	}
}

func TestWriteOnnxChecker(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	dir := t.TempDir()
	var paths []string
	for k, a := range allActivations {
		n := randNet(rng, []int{3, 4, 2}, []nn.Activation{a, {Kind: nn.Identity}})
		_, _, data := roundTrip(t, n)
		p := filepath.Join(dir, a.Kind.String()+itoa(k)+".onnx")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	onnxCheck(t, paths...)
}
