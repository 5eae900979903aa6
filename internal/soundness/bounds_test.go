package soundness_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
)

// bigLayers returns the pre-activations and outputs of every layer of net
// at x in high precision.
func bigLayers(net *nn.Network, x []float64) (pre, post [][]*big.Float) {
	h := make([]*big.Float, len(x))
	for i, v := range x {
		h[i] = newBig(v)
	}
	for _, l := range net.Layers {
		raw := l.W.RawMatrix()
		ps, nh := make([]*big.Float, raw.Rows), make([]*big.Float, raw.Rows)
		for i := range raw.Rows {
			row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
			s := newBig(l.B[i])
			t := new(big.Float).SetPrec(bigPrec)
			for j, w := range row {
				if w != 0 {
					s.Add(s, t.Mul(newBig(w), h[j]))
				}
			}
			ps[i], nh[i] = s, bigAct(l.Act, s)
		}
		pre, post = append(pre, ps), append(post, nh)
		h = nh
	}
	return pre, post
}

// enclosure is one interval claimed by bound propagation and how to read
// the quantity it encloses from the layers of both networks.
type enclosure struct {
	name string
	iv   bounds.Interval
	// val returns the quantity from float64 layers, bigVal from
	// high-precision ones.
	val    func(l1, l2 layerVals) float64
	bigVal func(b1, b2 bigLayerVals) *big.Float
}

type layerVals struct{ pre, post [][]float64 }
type bigLayerVals struct{ pre, post [][]*big.Float }

// enclosures lists every interval of pb (and of the single-network
// bounds), and [0, Norm2] for the norm of the output difference.
func enclosures(pb *bounds.PairBounds) []enclosure {
	var es []enclosure
	for n, net := range [2]*bounds.Net{pb.Net1, pb.Net2} {
		for k := range net.Pre {
			for i := range net.Pre[k] {
				k, i, n := k, i, n
				pick := func(l1, l2 layerVals) layerVals { return [2]layerVals{l1, l2}[n] }
				pickB := func(b1, b2 bigLayerVals) bigLayerVals { return [2]bigLayerVals{b1, b2}[n] }
				es = append(es,
					enclosure{fmt.Sprintf("net%d pre[%d][%d]", n+1, k, i), net.Pre[k][i],
						func(l1, l2 layerVals) float64 { return pick(l1, l2).pre[k][i] },
						func(b1, b2 bigLayerVals) *big.Float { return pickB(b1, b2).pre[k][i] }},
					enclosure{fmt.Sprintf("net%d post[%d][%d]", n+1, k, i), net.Post[k][i],
						func(l1, l2 layerVals) float64 { return pick(l1, l2).post[k][i] },
						func(b1, b2 bigLayerVals) *big.Float { return pickB(b1, b2).post[k][i] }})
			}
		}
	}
	diff := func(name string, ivs [][]bounds.Interval, post bool) {
		for k, row := range ivs {
			for i, iv := range row {
				k, i := k, i
				get := func(l layerVals) float64 {
					if post {
						return l.post[k][i]
					}
					return l.pre[k][i]
				}
				getB := func(l bigLayerVals) *big.Float {
					if post {
						return l.post[k][i]
					}
					return l.pre[k][i]
				}
				es = append(es, enclosure{fmt.Sprintf("%s[%d][%d]", name, k, i), iv,
					func(l1, l2 layerVals) float64 { return get(l2) - get(l1) },
					func(b1, b2 bigLayerVals) *big.Float {
						return new(big.Float).SetPrec(bigPrec).Sub(getB(b2), getB(b1))
					}})
			}
		}
	}
	diff("diffPre", pb.DiffPre, false)
	diff("diffPost", pb.DiffPost, true)
	for j, iv := range pb.Output {
		j := j
		es = append(es, enclosure{fmt.Sprintf("output[%d]", j), iv,
			func(l1, l2 layerVals) float64 {
				return l2.post[len(l2.post)-1][j] - l1.post[len(l1.post)-1][j]
			},
			func(b1, b2 bigLayerVals) *big.Float {
				return new(big.Float).SetPrec(bigPrec).Sub(b2.post[len(b2.post)-1][j], b1.post[len(b1.post)-1][j])
			}})
	}
	// The 2-norm of the output difference (over the pieces of a split box).
	es = append(es, enclosure{"norm2", bounds.Interval{Lo: 0, Hi: pb.Norm2()},
		func(l1, l2 layerVals) float64 {
			o1, o2 := l1.post[len(l1.post)-1], l2.post[len(l2.post)-1]
			s := 0.0
			for j := range o1 {
				s += (o2[j] - o1[j]) * (o2[j] - o1[j])
			}
			return math.Sqrt(s)
		},
		func(b1, b2 bigLayerVals) *big.Float {
			o1, o2 := b1.post[len(b1.post)-1], b2.post[len(b2.post)-1]
			s := new(big.Float).SetPrec(bigPrec)
			for j := range o1 {
				d := new(big.Float).SetPrec(bigPrec).Sub(o2[j], o1[j])
				s.Add(s, d.Mul(d, d))
			}
			return s.Sqrt(s)
		}})
	return es
}

// TestBoundsCampaign checks every enclosure of bounds.Pair on the
// campaign's instances in high precision at the points where the float64
// values come closest to (or beyond) each end: the quantities the
// certificate's constraints and its eta radius rest on.
func TestBoundsCampaign(t *testing.T) {
	long := os.Getenv("NNBOUND_LONG") == "1"
	n, first := campaignSize(long)
	cfg, budget := shortConfig, 300
	if long {
		cfg, budget = longConfig, 2000
	}
	start := time.Now()
	checked, cases := 0, 0
	for s := first; s < first+uint64(n); s++ {
		in, err := genInstance(s, cfg)
		if err != nil || in.saturating || in.f2.Quantised() {
			// The layer enclosures of a quantised network are those of
			// its lowered form (bounds/quantised.go); TestCampaign attacks
			// its certificates, bounds.TestQuantisedSoundness its outputs.
			continue
		}
		rng := rand.New(rand.NewPCG(s, 0xb0))
		opts := bounds.Options{Method: in.opts.Bounds}
		if rng.IntN(3) == 0 {
			opts = bounds.DefaultOptions()
			opts.Optimise.Differences = rng.IntN(2) == 0
		}
		if rng.IntN(4) == 0 {
			opts.Split = 2 + rng.IntN(6)
		}
		p := newProblem(in)
		pb, err := bounds.Pair(in.f1, in.f2, p.inputs, opts)
		if err != nil {
			t.Errorf("%v: bounds.Pair: %v", in, err)
			continue
		}
		cases++
		es := enclosures(pb)
		// Points: corners, random, and for each enclosure the float64
		// extremes found.
		lowest, highest := make([]float64, len(es)), make([]float64, len(es))
		lowZ, highZ := make([][]float64, len(es)), make([][]float64, len(es))
		for k := range es {
			lowest[k], highest[k] = math.Inf(1), math.Inf(-1)
		}
		visit := func(z []float64) {
			x1, x2 := p.split(z)
			var l1, l2 layerVals
			l1.pre, l1.post = boundstest.Trace(in.f1, x1)
			l2.pre, l2.post = boundstest.Trace(in.f2, x2)
			for k, e := range es {
				v := e.val(l1, l2)
				// Distance beyond each end, relative to the interval.
				if lo := v - e.iv.Lo; lo < lowest[k] {
					lowest[k], lowZ[k] = lo, slices.Clone(z)
				}
				if hi := v - e.iv.Hi; hi > highest[k] {
					highest[k], highZ[k] = hi, slices.Clone(z)
				}
			}
		}
		dim := len(p.lo)
		z := make([]float64, dim)
		for c := range 1 << min(dim, 10) {
			for i := range z {
				z[i] = p.lo[i]
				if c>>i&1 == 1 {
					z[i] = p.hi[i]
				}
			}
			visit(z)
		}
		for range budget {
			for i := range z {
				z[i] = p.lo[i] + rng.Float64()*(p.hi[i]-p.lo[i])
				if rng.IntN(5) == 0 {
					z[i] = [2]float64{p.lo[i], p.hi[i]}[rng.IntN(2)]
				}
			}
			visit(z)
		}
		// High-precision check at each enclosure's extremes.
		cache := map[string][2]bigLayerVals{}
		bigAt := func(z []float64) (bigLayerVals, bigLayerVals) {
			key := fmt.Sprint(z)
			if v, ok := cache[key]; ok {
				return v[0], v[1]
			}
			x1, x2 := p.split(z)
			var b1, b2 bigLayerVals
			b1.pre, b1.post = bigLayers(in.f1, x1)
			b2.pre, b2.post = bigLayers(in.f2, x2)
			cache[key] = [2]bigLayerVals{b1, b2}
			return b1, b2
		}
		for k, e := range es {
			for side, z := range [2][]float64{lowZ[k], highZ[k]} {
				if z == nil {
					continue
				}
				b1, b2 := bigAt(z)
				v := e.bigVal(b1, b2)
				checked++
				// Beyond the end by more than the slack of the magnitudes.
				x1, x2 := p.split(z)
				_, _, m1 := evalTracked(in.f1, x1)
				_, _, m2 := evalTracked(in.f2, x2)
				mag := 1 + math.Abs(e.iv.Lo) + math.Abs(e.iv.Hi)
				for j := range m1 {
					mag += m1[j] + m2[j]
				}
				lo := new(big.Float).SetPrec(bigPrec).Sub(newBig(e.iv.Lo), bigSlack(mag))
				hi := new(big.Float).SetPrec(bigPrec).Add(newBig(e.iv.Hi), bigSlack(mag))
				bad := (side == 0 && v.Cmp(lo) < 0) || (side == 1 && v.Cmp(hi) > 0)
				if bad {
					fv, _ := v.Float64()
					t.Errorf("VIOLATION %v\n  bounds %+v: %s = %.17g (high precision) outside %v at x1 %v x2 %v",
						in, opts, e.name, fv, e.iv, x1, x2)
				}
			}
		}
	}
	t.Logf("%d instances, %d high-precision checks, in %v", cases, checked, time.Since(start).Round(time.Millisecond))
}
