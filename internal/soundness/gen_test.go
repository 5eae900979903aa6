package soundness_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// instance is one certification problem of the campaign.
type instance struct {
	seed   uint64
	desc   []string // how it was made, for reports
	f1, f2 *nn.Network
	box    spec.Box
	opts   certjob.Job
	// saturating reports an input quantiser that saturates inside the box
	// (a known violation, counted apart).
	saturating bool
}

func (in *instance) String() string {
	return fmt.Sprintf("seed %d: %s", in.seed, strings.Join(in.desc, ", "))
}

func (in *instance) note(format string, args ...any) {
	in.desc = append(in.desc, fmt.Sprintf(format, args...))
}

// genConfig bounds the size of generated instances.
type genConfig struct {
	maxDepth, maxWidth int
	// paperNeurons is the largest number of neurons (both networks) for
	// which the paper's O(N^2) QC set is tried.
	paperNeurons int
	// maxPieces caps input splitting.
	maxPieces int
	// tight splits as far as maxPieces allows (target ratio 1) on one or
	// two inputs, so that bounds come close to the attained error.
	tight bool
	// searchWork is certify.Options.SearchWork (0: the default): the
	// observed error's search, which the campaign's own attack does not
	// trust, is most of the time of a certificate on networks this small.
	searchWork float64
}

var shortConfig = genConfig{maxDepth: 3, maxWidth: 8, paperNeurons: 24, maxPieces: 8,
	searchWork: certify.DefaultOptions().SearchWork / 100}
var longConfig = genConfig{maxDepth: 4, maxWidth: 12, paperNeurons: 40, maxPieces: 24}

// pick returns one of vs at random.
func pick[T any](rng *rand.Rand, vs ...T) T { return vs[rng.IntN(len(vs))] }

// randActivation returns a random activation with random parameters.
func randActivation(rng *rand.Rand) nn.Activation {
	switch rng.IntN(7) {
	case 0:
		return nn.Activation{Kind: nn.ReLU}
	case 1:
		return nn.Activation{Kind: nn.LeakyReLU, Alpha: pick(rng, 0.01, 0.1, 0.5, 0, 1, 1.5, -0.3, 3)}
	case 2:
		return nn.Activation{Kind: nn.Tanh}
	case 3:
		return nn.Activation{Kind: nn.Sigmoid}
	case 4:
		return nn.Activation{Kind: nn.ELU, Alpha: pick(rng, 1, 0.5, 2, 0, -0.5, 1e-3)}
	case 5:
		lh := pick(rng, [2]float64{-1, 1}, [2]float64{0, 1}, [2]float64{0.5, 2}, [2]float64{-2, -0.5},
			[2]float64{-0.25, 0.25}, [2]float64{0.3, 0.3}, [2]float64{-3, 0})
		return nn.Activation{Kind: nn.HardTanh, Lo: lh[0], Hi: lh[1]}
	}
	return nn.Activation{Kind: nn.Identity}
}

// randNetwork returns a network nx -> widths... -> nf with activation act
// on the hidden layers (a fresh random one per layer when mixed), weights
// and biases standard normal times scale (per layer when layerScales).
func randNetwork(rng *rand.Rand, nx, nf int, widths []int, act nn.Activation, mixed, outAct bool, scale float64, layerScales bool) *nn.Network {
	sizes := append(append([]int{nx}, widths...), nf)
	net := &nn.Network{}
	for k := 0; k+1 < len(sizes); k++ {
		in, out := sizes[k], sizes[k+1]
		s := scale
		if layerScales {
			s = math.Pow(10, -3+6*rng.Float64())
		}
		w := mat.NewDense(out, in, nil)
		for i := range out {
			for j := range in {
				w.Set(i, j, s*rng.NormFloat64())
			}
		}
		b := make([]float64, out)
		for i := range b {
			b[i] = s * rng.NormFloat64()
			if rng.IntN(8) == 0 {
				b[i] = 0
			}
		}
		a := act
		if mixed {
			a = randActivation(rng)
		}
		if k == len(sizes)-2 {
			a = nn.Activation{Kind: nn.Identity}
			if outAct {
				a = randActivation(rng)
			}
		}
		net.Layers = append(net.Layers, nn.Layer{W: w, B: b, Act: a})
	}
	return net
}

// randWidths returns 1..maxDepth hidden widths of 1..maxWidth.
func randWidths(rng *rand.Rand, c genConfig) []int {
	ws := make([]int, 1+rng.IntN(c.maxDepth))
	for i := range ws {
		ws[i] = 1 + rng.IntN(c.maxWidth)
	}
	return ws
}

// randFormat returns a random fixed-point format; saturating ones only
// when sat.
func randFormat(rng *rand.Rand, sat bool) quantise.Format {
	f := quantise.Format{FracBits: pick(rng, 1, 2, 3, 4, 6, 8, 12, 20), Rounding: quantise.Rounding(rng.IntN(3))}
	if rng.IntN(4) == 0 {
		f.IntBits = 1 + rng.IntN(6)
		f.Saturate = sat
	}
	return f
}

// randBox returns a box of dimension n with degenerate coordinates mixed
// in: zero width, tiny, far from 0, huge.
func randBox(rng *rand.Rand, n int, in *instance) spec.Box {
	b := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	kind := rng.IntN(10)
	for i := range n {
		k := kind
		if kind >= 8 {
			k = rng.IntN(8) // mixed per coordinate
		}
		c, w := 0.0, 1.0
		switch k {
		case 0, 1, 2, 3: // ordinary
			c, w = rng.Float64()-0.5, 0.1+1.9*rng.Float64()
		case 4: // zero width
			c, w = 2*rng.Float64()-1, 0
		case 5: // tiny
			c, w = 2*rng.Float64()-1, math.Pow(10, -12+8*rng.Float64())
		case 6: // far from 0
			c, w = pick(rng, 1.0, -1.0)*math.Pow(10, 1+5*rng.Float64()), math.Pow(10, -3+4*rng.Float64())
		case 7: // huge
			c, w = 0, math.Pow(10, 2+4*rng.Float64())
		}
		b.Lo[i], b.Hi[i] = c-w/2, c+w/2
		if w == 0 {
			b.Lo[i], b.Hi[i] = c, c
		}
	}
	in.note("box %v..%v", short(b.Lo), short(b.Hi))
	return b
}

func short(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.3g", x)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// genInstance returns instance seed of the campaign.
func genInstance(seed uint64, c genConfig) (*instance, error) {
	rng := rand.New(rand.NewPCG(seed, 0x736f756e64))
	in := &instance{seed: seed}
	nx, nf := 1+rng.IntN(5), 1+rng.IntN(3)
	if rng.IntN(3) == 0 || c.tight {
		nx = 1 + rng.IntN(2) // exact search and fine grids
	}
	act := randActivation(rng)
	mixed, outAct := rng.IntN(5) == 0, rng.IntN(8) == 0
	scale := math.Pow(10, pick(rng, 0.0, 0.0, -3+6*rng.Float64(), -1+2*rng.Float64()))
	layerScales := rng.IntN(8) == 0
	widths := randWidths(rng, c)
	in.f1 = randNetwork(rng, nx, nf, widths, act, mixed, outAct, scale, layerScales)
	in.note("f1 %d-%v-%d %v mixed=%v outAct=%v scale %.3g layerScales=%v", nx, widths, nf, act.Kind, mixed, outAct, scale, layerScales)
	o := certjob.Default()
	o.Seed = seed
	o.Samples = 200
	o.SearchWork = c.searchWork
	mode := pick(rng, "self", "indep", "quant-input", "quant-input", "quant-weights", "float16", "prune-neurons", "prune-weights", "perturb")
	if seed%7 == 3 {
		mode = "qdq"
	}
	var err error
	switch mode {
	case "qdq":
		err = qdqCopy(rng, in, nx, nf, widths, scale)
		o.Pairing = spec.SameInput
	case "self":
		in.f2 = in.f1
		o.Pairing = pick(rng, spec.Independent, spec.SameInput)
	case "indep":
		w2 := randWidths(rng, c)
		act2 := act
		if rng.IntN(2) == 0 {
			act2 = randActivation(rng)
		}
		in.f2 = randNetwork(rng, nx, nf, w2, act2, mixed, outAct, scale, layerScales)
		in.note("f2 %v %v", w2, act2.Kind)
		o.Pairing = pick(rng, spec.Independent, spec.SameInput)
	case "quant-input", "quant-weights":
		wf := randFormat(rng, true)
		if rng.IntN(3) == 0 {
			// Enough integer bits for the weights, so no error.
			wf.IntBits, wf.Saturate = 0, false
		}
		in.f2, err = quantise.Network(in.f1, quantise.Options{Weights: wf, Biases: wf})
		if err != nil {
			wf.IntBits, wf.Saturate = 0, false
			in.f2, err = quantise.Network(in.f1, quantise.Options{Weights: wf, Biases: wf})
		}
		in.note("weights %v", wf)
		o.Pairing = spec.SameInput
		if mode == "quant-input" {
			o.Pairing = spec.QuantisedInput
			o.Quant = randFormat(rng, true)
			if rng.IntN(2) == 0 {
				o.Quant.FracBits = wf.FracBits
			}
			in.note("input %v", o.Quant)
		}
	case "float16":
		in.f2, err = quantise.Float16(in.f1)
		o.Pairing = spec.SameInput
	case "prune-neurons":
		no := prune.NeuronOptions{Count: 1 + rng.IntN(3), Scope: prune.Scope(rng.IntN(2)), Remove: rng.IntN(2) == 0}
		in.f2, _, err = prune.Neurons(in.f1, no)
		if err != nil {
			// Too few layers or neurons for that count: prune weights.
			wo := prune.WeightOptions{Sparsity: 0.5, Scope: prune.Global}
			in.f2, _, err = prune.Weights(in.f1, wo)
			no = prune.NeuronOptions{}
		}
		in.note("prune %+v", no)
		o.Pairing = spec.SameInput
	case "prune-weights":
		wo := prune.WeightOptions{Sparsity: pick(rng, 0.1, 0.3, 0.5, 0.9), Scope: prune.Scope(rng.IntN(2))}
		in.f2, _, err = prune.Weights(in.f1, wo)
		in.note("prune %+v", wo)
		o.Pairing = spec.SameInput
	case "perturb":
		rel := math.Pow(10, -16+14*rng.Float64())
		in.f2 = boundstest.Perturb(rng, in.f1, rel)
		in.note("perturb %.2g", rel)
		o.Pairing = pick(rng, spec.SameInput, spec.SameInput, spec.Independent)
	}
	if err != nil {
		return nil, fmt.Errorf("seed %d: %s: %w", seed, mode, err)
	}
	in.desc = append([]string{mode, o.Pairing.String()}, in.desc...)
	in.box = randBox(rng, nx, in)
	if o.Pairing == spec.QuantisedInput && o.Quant.Saturate {
		lim := o.Quant.Limit()
		for i := range in.box.Lo {
			if in.box.Hi[i] > lim || in.box.Lo[i] < -lim {
				in.saturating = true
			}
		}
	}
	// Options.
	if rng.IntN(7) == 0 {
		o.Method = certify.MethodPropagation
	}
	neurons := 0
	for _, f := range [2]*nn.Network{in.f1, in.f2} {
		for _, l := range f.Layers[:len(f.Layers)-1] {
			neurons += l.Out()
		}
	}
	if neurons <= c.paperNeurons && rng.IntN(4) == 0 {
		o.QC = certify.QCPaper
	}
	switch rng.IntN(6) {
	case 0:
		o.Norm = spec.NormInf
		o.InfJoint = rng.IntN(2) == 0
	case 1:
		o.C = randC(rng, nf)
		in.note("C %v", o.C)
	}
	o.Weights = pick(rng, certify.WeightsWorstCase, certify.WeightsWorstCase, certify.WeightsUnit, certify.WeightsPaper)
	o.Bounds = pick(rng, bounds.MethodSymbolic, bounds.MethodSymbolic, bounds.MethodInterval, bounds.MethodOptimised)
	o.Refine.TimeBudget = 0 // deterministic
	o.Refine.MaxPieces = pick(rng, 1, 1+rng.IntN(c.maxPieces))
	if rng.IntN(3) == 0 || c.tight {
		o.Refine.TargetRatio = 1 // split as far as allowed
	}
	if c.tight {
		o.Refine.MaxPieces = c.maxPieces
	}
	if rng.IntN(6) == 0 {
		o.Kinds = 0
		for rng.IntN(3) != 0 {
			o.Kinds |= 1 << rng.IntN(24)
		}
	}
	if mode == "qdq" {
		o.InfJoint = false // the joint inf-norm SDP refuses quantisers
	}
	in.opts = o
	in.note("method %v qc %v norm %v joint %v weights %v bounds %v pieces %d kinds %#x", o.Method, o.QC, o.Norm,
		o.InfJoint, o.Weights, o.Bounds, o.Refine.MaxPieces, uint64(o.Kinds))
	return in, nil
}

// randC returns a random objective vector: a unit vector, a margin e_i -
// e_j, or a random one.
func randC(rng *rand.Rand, nf int) []float64 {
	cv := make([]float64, nf)
	switch {
	case nf > 1 && rng.IntN(3) == 0:
		i, j := rng.IntN(nf), rng.IntN(nf-1)
		if j >= i {
			j++
		}
		cv[i], cv[j] = 1, -1
	case rng.IntN(2) == 0:
		cv[rng.IntN(nf)] = pick(rng, 1.0, -1.0, 1e-3, 1e3)
	default:
		for i := range cv {
			cv[i] = rng.NormFloat64()
		}
	}
	return cv
}

// qdqCopy makes in.f1 a ReLU network (the activations quantisers are
// modelled with) and in.f2 its int8 or narrower copy (quantise.Int8): both
// weight schemes, symmetric or asymmetric activations, 3 to 8 bits, and
// ranges calibrated on samples of [-2, 2]^nx, then shrunk and shifted at
// random so that the quantisers saturate and their scales and zero points
// are random.
func qdqCopy(rng *rand.Rand, in *instance, nx, nf int, widths []int, scale float64) error {
	if k := in.f1.Layers[0].Act.Kind; k != nn.ReLU && k != nn.Identity && k != nn.HardTanh {
		in.f1 = randNetwork(rng, nx, nf, widths, nn.Activation{Kind: nn.ReLU}, false, false, scale, false)
		in.note("f1 redrawn with ReLU")
	}
	for _, l := range in.f1.Layers {
		if k := l.Act.Kind; k != nn.ReLU && k != nn.Identity && k != nn.HardTanh {
			in.f1 = randNetwork(rng, nx, nf, widths, nn.Activation{Kind: nn.ReLU}, false, false, scale, false)
			in.note("f1 redrawn with ReLU")
			break
		}
	}
	var xs [][]float64
	for range 64 {
		x := make([]float64, nx)
		for i := range x {
			x[i] = 4*rng.Float64() - 2
		}
		xs = append(xs, x)
	}
	var o quantise.Int8Options
	var err error
	in.f2, o, err = boundstest.Int8(rng, in.f1, xs)
	in.note("int8 %+v", o)
	return err
}
