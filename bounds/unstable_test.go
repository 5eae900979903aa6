package bounds

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
)

// TestUnstableMismatch checks that Unstable counts the straddling
// neurons of the network its bounds are of, and returns an error wrapping
// nn.ErrDimension, not a panic, for a network of other layers.
func TestUnstableMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	net := func(sizes ...int) *nn.Network {
		f, err := randnet.New(rng, sizes)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := net(4, 10, 10, 2)
	n, err := Single(f, randBox(rng, 4, 0.5), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got, err := n.Unstable(f)
	if err != nil {
		t.Fatalf("the bounds' own network: %v", err)
	}
	for k, pre := range n.Pre {
		want := 0
		for _, x := range pre {
			if x.Lo < 0 && 0 < x.Hi && f.Layers[k].Act.Kind == nn.ReLU {
				want++
			}
		}
		if got[k] != want {
			t.Errorf("layer %d: %d unstable, want %d", k, got[k], want)
		}
	}
	for _, c := range []struct {
		name string
		g    *nn.Network
	}{
		{"more layers", net(4, 10, 10, 10, 2)},
		{"fewer layers", net(4, 10, 2)},
		{"other widths", net(4, 10, 12, 2)},
	} {
		if _, err := n.Unstable(c.g); !errors.Is(err, nn.ErrDimension) {
			t.Errorf("%s: error %v, want nn.ErrDimension", c.name, err)
		}
	}
}

// mustUnstable returns n.Unstable(f), failing t on an error.
func mustUnstable(t testing.TB, n *Net, f *nn.Network) []int {
	t.Helper()
	u, err := n.Unstable(f)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
