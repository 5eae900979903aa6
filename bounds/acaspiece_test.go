package bounds

import (
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// acasPieceSet is the work of one piece set of the cheap refinement of
// certify on an ACAS Xu float16 instance: its box halved along every free
// coordinate, each piece bounded by Pair as certify bounds a piece (the
// whole box's bounds as Within, the unstable neurons only, the target
// output only, 5 slope steps) and the target's margin.
type acasPieceSet struct {
	f, g   *nn.Network
	c      []float64
	pieces []spec.Box
	whole  *PairBounds
	opts   Options
}

// newACASPieceSet returns the piece set of property prop on net (i_j),
// with plain pairs or the joint ones.
func newACASPieceSet(t testing.TB, prop, net string, plain bool) *acasPieceSet {
	t.Helper()
	inst := boundstest.ACASProperty(t, prop, net)
	f, g := inst.Networks(t)
	s := &acasPieceSet{f: f, g: g, c: make([]float64, f.OutputSize())}
	s.c[inst.Target] = 1
	s.pieces = []spec.Box{{Lo: inst.Lo, Hi: inst.Hi}}
	for i := range inst.Lo {
		if inst.Lo[i] == inst.Hi[i] {
			continue
		}
		var next []spec.Box
		for _, b := range s.pieces {
			mid := (b.Lo[i] + b.Hi[i]) / 2
			lo := spec.Box{Lo: slices.Clone(b.Lo), Hi: slices.Clone(b.Hi)}
			hi := spec.Box{Lo: slices.Clone(b.Lo), Hi: slices.Clone(b.Hi)}
			lo.Hi[i], hi.Lo[i] = mid, mid
			next = append(next, lo, hi)
		}
		s.pieces = next
	}
	opts := Options{Method: MethodOptimised, Optimise: OptimiseSettings{Iterations: 5}}
	whole, err := Pair(f, g, spec.Inputs{Box: spec.Box{Lo: inst.Lo, Hi: inst.Hi}, Pairing: spec.SameInput}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s.whole = whole.Prior()
	opts.PlainPairs, opts.UnstableOnly, opts.Within = plain, true, s.whole
	opts.Outputs = []int{inst.Target}
	s.opts = opts
	return s
}

// run bounds every piece and returns a digest of the bits of every bound
// Pair returned (both networks' pre-activations, the differences, the
// outputs) and the target's margins.
func (s *acasPieceSet) run(t testing.TB) (digest uint64, margins []Interval) {
	h := fnv.New64a()
	put := func(v ...[]Interval) {
		for _, x := range v {
			for _, iv := range x {
				fmt.Fprintf(h, "%x %x;", math.Float64bits(iv.Lo), math.Float64bits(iv.Hi))
			}
		}
	}
	for _, b := range s.pieces {
		pb, err := Pair(s.f, s.g, spec.Inputs{Box: b, Pairing: spec.SameInput}, s.opts)
		if err != nil {
			t.Fatal(err)
		}
		m, err := pb.Margin(s.c)
		if err != nil {
			t.Fatal(err)
		}
		put(pb.Net1.Pre...)
		put(pb.Net2.Pre...)
		put(pb.DiffPre...)
		put(pb.DiffPost...)
		put(pb.Output, []Interval{m})
		margins = append(margins, m)
	}
	return h.Sum64(), margins
}

// TestACASPiecesPinned pins, to the last bit, the bounds of ACAS Xu pieces
// as the cheap refinement of certify computes them: a change that makes
// a piece cheaper must not change what it computes. The bits are those of
// amd64 at its default level (GOAMD64=v1), where the compiler fuses no
// multiply-add; a digest that differs prints the upper ends of the first
// margins to compare with.
func TestACASPiecesPinned(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the bits pinned are amd64's")
	}
	for _, c := range []struct {
		prop, net string
		plain     bool
		digest    uint64
		hi        []float64 // the margins' upper ends of the first pieces
	}{
		{"3", "1_1", false, 0xc6e37f0290adf12e, []float64{0.003158259495201821, 0.0033129748932134114, 0.0056343659524875486, 0.0053966220645260262}},
		{"4", "5_1", true, 0x07f6e474f4ac6dd2, []float64{0.00060218782606789477, 0.00074146150314309415, 0.00053124208464156895, 0.00056032343494871045}},
	} {
		s := newACASPieceSet(t, c.prop, c.net, c.plain)
		digest, m := s.run(t)
		for i, want := range c.hi {
			if m[i].Hi != want {
				t.Errorf("%s/%s piece %d: margin %v, want upper end %.17g", c.prop, c.net, i, m[i], want)
			}
		}
		if digest != c.digest {
			var his []string
			for _, v := range m[:4] {
				his = append(his, fmt.Sprintf("%.17g", v.Hi))
			}
			t.Errorf("%s/%s: digest of the bounds of %d pieces %#x, want %#x (margins' upper ends %v)", c.prop, c.net, len(s.pieces), digest, c.digest, his)
		}
	}
}

// BenchmarkACASPieces bounds the pieces of TestACASPiecesPinned's first
// instance (go test -bench ACASPieces -cpuprofile ...).
func BenchmarkACASPieces(b *testing.B) {
	s := newACASPieceSet(b, "3", "1_1", false)
	b.ResetTimer()
	for b.Loop() {
		s.run(b)
	}
}
