package qc

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// InputMode says how a coordinate of the second network's input x2 enters
// eta.
type InputMode int

// The input modes.
const (
	// InputFree: x2_i has its own coordinate of eta.
	InputFree InputMode = iota
	// InputSame: x2_i = x1_i (no coordinate).
	InputSame
	// InputFixed: x2_i is the constant Input.Value (no coordinate).
	InputFixed
)

var inputModeNames = [...]string{"free", "same", "fixed"}

// String returns the mode's name.
func (m InputMode) String() string {
	if m < 0 || int(m) >= len(inputModeNames) {
		return fmt.Sprintf("InputMode(%d)", int(m))
	}
	return inputModeNames[m]
}

// Input describes one coordinate of x2.
type Input struct {
	Mode  InputMode
	Value float64 // the constant, for InputFixed
}

// Neuron says how an activation neuron enters eta. A kept neuron has a
// coordinate phi of its own; an eliminated one is known to act affinely on
// its pre-activation range, phi = Slope*xi + Offset exactly (a ReLU that is
// always off has Slope 0, one always on Slope 1).
type Neuron struct {
	Eliminated    bool
	Slope, Offset float64
}

// Keep is the Neuron value of a neuron with its own coordinate.
var Keep = Neuron{}

// Config describes what a Layout is built from. Nets[1] may have other
// hidden sizes and depth than Nets[0]; the input and output sizes must
// agree.
type Config struct {
	Nets [2]*nn.Network
	// X1 has one entry per input coordinate of the first network: InputFree
	// (its own coordinate) or InputFixed (a constant, e.g. a box of zero
	// width); nil means all InputFree.
	X1 []Input
	// X2 has one entry per input coordinate; nil means all InputFree.
	X2 []Input
	// Neurons[n][k][i] is the treatment of neuron i of layer k of network n;
	// a nil slice at any level means Keep. Layers with the Identity
	// activation have no neurons in eta whatever is given here.
	Neurons [2][][]Neuron
	// MergeIdentical makes a kept neuron of network 2 that provably
	// computes exactly what the same neuron of network 1 computes share
	// network 1's coordinate (see twins: same layer, index, activation and
	// fan-in, bit-identical weights and bias, and every input with a
	// non-zero weight exactly the same number in both networks; e.g. the
	// unchanged first layer of a pruned copy fed the same input): two
	// coordinates that are always equal leave the SDP without a strictly
	// feasible point. Equal rounded forms are not enough: two weights that
	// differ by less than the forms' rounding would be merged and their
	// difference lost.
	MergeIdentical bool
	// DiffCoords makes a kept neuron of network 2 that has a corresponding
	// neuron in network 1 (same layer, index and activation, layers of the
	// same width) take a coordinate holding the difference
	// phi2 - phi1 of the two outputs rather than phi2 itself: a change of
	// coordinates (the LMI's value is the same) that keeps a small
	// difference between two close networks (a float16 or quantised copy)
	// from being the cancellation of two large coordinates.
	DiffCoords bool
	// Noise[n][k][i] > 0 adds to the pre-activation of neuron i of layer k
	// of network n a noise coordinate e with |e| <= Noise[n][k][i] (see
	// Noise, the builder of its constraints): the rounding of an int8
	// quantiser (bounds.Lowered). A nil slice at any level means none.
	// A neuron with noise is never merged (MergeIdentical).
	Noise [2][][]float64
	// Sat[n][k][i] clamps the output of neuron i of layer k of network n
	// (the saturation of an int8 quantiser, see Sat); nil at any level
	// means none.
	Sat [2][][]Sat
}

// Sat is the clamp of a neuron's output act(xi) to [Lo, Hi] where its
// activation (the identity or a ReLU, Lo <= 0 <= Hi for a ReLU) may leave
// it:
//
//	out = act(xi) - relu(xi - Hi) + relu(Lo - xi),
//
// each excess a coordinate of eta when Above (Below) is set; an unset
// side is one the neuron never reaches (a ReLU's output is never below a
// Lo <= 0). The layer's Post stays act(xi), its Out is out.
type Sat struct {
	Lo, Hi       float64
	Below, Above bool
}

// Layer holds the forms of one layer of one network.
type Layer struct {
	Act nn.Activation
	// Pre[i] is the pre-activation xi_i and Post[i] the output act(xi_i).
	Pre, Post []Form
	// Coord[i] is the coordinate of eta holding Post[i], or -1 if the
	// neuron has none (eliminated, or an Identity layer).
	Coord []int
	// Diff[i] (network 2, Config.DiffCoords) reports that Coord[i] holds
	// Post[i] minus the output of neuron i of the same layer of network 1.
	Diff []bool
	// NoiseCoord[i] is the coordinate of the noise added to Pre[i] (-1:
	// none), NoiseRad[i] the bound on its magnitude (Config.Noise).
	NoiseCoord []int
	NoiseRad   []float64
	// Out[i] is the neuron's output, what the next layer reads: Post[i]
	// minus the excess above Sat[i].Hi (coordinate SatAbove[i], -1: none)
	// plus the excess below Sat[i].Lo (SatBelow[i]); Post[i] where the
	// neuron has no clamp (Config.Sat).
	Out                []Form
	Sat                []Sat
	SatAbove, SatBelow []int
}

// Net holds the forms of one network.
type Net struct {
	Layers []Layer
	// Out[j] is output j of the network.
	Out []Form
}

// Layout maps the pieces of eta to coordinates and holds every quantity of
// both networks as an affine form of eta.
type Layout struct {
	// Dim is the length of eta; One = Dim-1 is its constant coordinate.
	Dim, One int
	// X1[i] and X2[i] are input coordinate i of each network.
	X1, X2 []Form
	// Inputs1 and Inputs are copies of Config.X1 and Config.X2 (all
	// InputFree if nil).
	Inputs1, Inputs []Input
	Nets            [2]Net
	// Names[c] names coordinate c ("x1[0]", "n2.L1[3]", "1").
	Names []string
}

// NewLayout builds the layout of cfg. Coordinates are ordered x1, the free
// coordinates of x2, then the kept neurons layer by layer with the two
// networks interleaved (layer 0 of network 1, layer 0 of network 2, layer
// 1 of network 1, ...), then the constant: this keeps the LMI's non-zeros
// near the diagonal band of consecutive layers.
func NewLayout(cfg Config) (*Layout, error) {
	n1, n2 := cfg.Nets[0], cfg.Nets[1]
	if n1 == nil || n2 == nil {
		return nil, fmt.Errorf("qc: layout needs two networks: %w", nn.ErrDimension)
	}
	for n, net := range cfg.Nets {
		if err := net.Validate(); err != nil {
			return nil, fmt.Errorf("qc: network %d: %w", n+1, err)
		}
		err := net.RequirePlain("the quadratic constraints of the SDP")
		if err == nil {
			err = net.RequireDense("the quadratic constraints of the SDP")
		}
		if err != nil {
			return nil, fmt.Errorf("qc: network %d: %w", n+1, err)
		}
	}
	nx := n1.InputSize()
	if n2.InputSize() != nx {
		return nil, fmt.Errorf("qc: network 1 takes %d inputs, network 2 takes %d: %w", nx, n2.InputSize(), nn.ErrDimension)
	}
	if n1.OutputSize() != n2.OutputSize() {
		return nil, fmt.Errorf("qc: network 1 has %d outputs, network 2 has %d: %w", n1.OutputSize(), n2.OutputSize(), nn.ErrDimension)
	}
	inputs := cfg.X2
	if inputs == nil {
		inputs = make([]Input, nx)
	}
	if len(inputs) != nx {
		return nil, fmt.Errorf("qc: %d x2 input modes for %d inputs: %w", len(inputs), nx, nn.ErrDimension)
	}
	inputs1 := cfg.X1
	if inputs1 == nil {
		inputs1 = make([]Input, nx)
	}
	if len(inputs1) != nx {
		return nil, fmt.Errorf("qc: %d x1 input modes for %d inputs: %w", len(inputs1), nx, nn.ErrDimension)
	}
	for n := range 2 {
		if err := checkNeurons(cfg.Nets[n], cfg.Neurons[n]); err != nil {
			return nil, fmt.Errorf("qc: network %d: %w", n+1, err)
		}
	}

	l := &Layout{Inputs1: append([]Input(nil), inputs1...), Inputs: append([]Input(nil), inputs...)}
	// Coordinates are numbered first; the constant's index is known only at
	// the end, so forms are built with a placeholder and renumbered.
	const onePlaceholder = -1
	next := 0
	newCoord := func(name string) int {
		l.Names = append(l.Names, name)
		next++
		return next - 1
	}
	l.X1 = make([]Form, nx)
	for i, in := range inputs1 {
		switch in.Mode {
		case InputFree:
			l.X1[i] = Unit(newCoord(fmt.Sprintf("x1[%d]", i)))
		case InputFixed:
			l.X1[i] = Scaled(in.Value, onePlaceholder)
		default:
			return nil, fmt.Errorf("qc: x1[%d] has mode %v, want free or fixed: %w", i, in.Mode, nn.ErrDimension)
		}
	}
	l.X2 = make([]Form, nx)
	for i, in := range inputs {
		switch in.Mode {
		case InputFree:
			l.X2[i] = Unit(newCoord(fmt.Sprintf("x2[%d]", i)))
		case InputSame:
			l.X2[i] = l.X1[i]
		case InputFixed:
			l.X2[i] = Scaled(in.Value, onePlaceholder)
		default:
			return nil, fmt.Errorf("qc: x2[%d] has unknown mode %d: %w", i, int(in.Mode), nn.ErrDimension)
		}
	}
	// Interleave the layers of the two networks when numbering.
	below := [2][]Form{l.X1, l.X2}
	twins := exactTwins(cfg.Nets, inputs1, inputs, cfg.Noise)
	depth := max(len(n1.Layers), len(n2.Layers))
	for n := range 2 {
		l.Nets[n].Layers = make([]Layer, len(cfg.Nets[n].Layers))
	}
	for k := range depth {
		for n := range 2 {
			net := cfg.Nets[n]
			if k >= len(net.Layers) {
				continue
			}
			nl := net.Layers[k]
			lay := Layer{Act: nl.Act, Pre: make([]Form, nl.Out()), Post: make([]Form, nl.Out()), Coord: make([]int, nl.Out()),
				Diff: make([]bool, nl.Out()), NoiseCoord: make([]int, nl.Out()), NoiseRad: make([]float64, nl.Out()),
				Out: make([]Form, nl.Out()), Sat: make([]Sat, nl.Out()), SatAbove: make([]int, nl.Out()), SatBelow: make([]int, nl.Out())}
			raw := nl.W.RawMatrix()
			for i := range nl.Out() {
				row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
				lay.Pre[i] = Dot(row, below[n], nl.B[i], onePlaceholder)
				lay.Coord[i], lay.NoiseCoord[i] = -1, -1
				if r := noiseAt(cfg.Noise[n], k, i); r > 0 {
					lay.NoiseCoord[i], lay.NoiseRad[i] = newCoord(fmt.Sprintf("e%d.L%d[%d]", n+1, k, i)), r
					lay.Pre[i] = Add(lay.Pre[i], Unit(lay.NoiseCoord[i]))
				}
				nr := neuronAt(cfg.Neurons[n], k, i)
				switch {
				case nl.Act.Kind == nn.Identity:
					lay.Post[i] = lay.Pre[i]
				case n == 1 && cfg.MergeIdentical && !nr.Eliminated && twins[k][i]:
					twin := l.Nets[0].Layers[k]
					lay.Post[i] = twin.Post[i]
					if twin.Coord[i] < 0 {
						lay.Post[i] = Comb(1, twin.Post[i], 0, Form{}) // a copy: renumbered on its own
					}
				case nr.Eliminated:
					lay.Post[i] = Comb(nr.Slope, lay.Pre[i], nr.Offset, Unit(onePlaceholder))
				case n == 1 && cfg.DiffCoords && hasTwin(l.Nets[0].Layers, k, &nl):
					lay.Coord[i] = newCoord(fmt.Sprintf("d.L%d[%d]", k, i))
					lay.Post[i] = Add(l.Nets[0].Layers[k].Post[i], Unit(lay.Coord[i]))
					lay.Diff[i] = true
				default:
					lay.Coord[i] = newCoord(fmt.Sprintf("n%d.L%d[%d]", n+1, k, i))
					lay.Post[i] = Unit(lay.Coord[i])
				}
				lay.Out[i] = lay.Post[i]
				lay.SatAbove[i], lay.SatBelow[i] = -1, -1
				if st := satAt(cfg.Sat[n], k, i); st.Above || st.Below {
					lay.Sat[i] = st
					if st.Above {
						lay.SatAbove[i] = newCoord(fmt.Sprintf("s%d.L%d[%d]+", n+1, k, i))
						lay.Out[i] = Sub(lay.Out[i], Unit(lay.SatAbove[i]))
					}
					if st.Below {
						lay.SatBelow[i] = newCoord(fmt.Sprintf("s%d.L%d[%d]-", n+1, k, i))
						lay.Out[i] = Add(lay.Out[i], Unit(lay.SatBelow[i]))
					}
				}
			}
			l.Nets[n].Layers[k] = lay
			below[n] = lay.Out
		}
	}
	for n := range 2 {
		l.Nets[n].Out = below[n]
	}
	l.One = newCoord("1")
	l.Dim = next
	l.renumberOne(onePlaceholder)
	return l, nil
}

// renumberOne replaces the placeholder index of the constant coordinate
// (which sorts first) by l.One in every form of l.
func (l *Layout) renumberOne(placeholder int) {
	fix := func(f *Form) {
		if len(f.Idx) == 0 || f.Idx[0] != placeholder {
			return
		}
		// Move the constant's coefficient from the front to the back.
		idx := append(append([]int(nil), f.Idx[1:]...), l.One)
		val := append(append([]float64(nil), f.Val[1:]...), f.Val[0])
		var rad []float64
		if f.Rad != nil {
			rad = append(append([]float64(nil), f.Rad[1:]...), f.Rad[0])
		}
		*f = Form{Idx: idx, Val: val, Rad: rad}
	}
	for i := range l.X1 {
		fix(&l.X1[i])
	}
	for i := range l.X2 {
		if l.Inputs[i].Mode != InputSame {
			fix(&l.X2[i])
		} else {
			l.X2[i] = l.X1[i]
		}
	}
	for n := range 2 {
		for k := range l.Nets[n].Layers {
			lay := &l.Nets[n].Layers[k]
			for i := range lay.Pre {
				fix(&lay.Pre[i])
				if lay.Coord[i] < 0 || lay.Diff[i] {
					fix(&lay.Post[i])
				}
				if lay.SatAbove[i] < 0 && lay.SatBelow[i] < 0 {
					lay.Out[i] = lay.Post[i]
				} else {
					fix(&lay.Out[i])
				}
			}
		}
		// Out aliases the last layer's Out slice, already fixed.
		l.Nets[n].Out = l.Nets[n].Layers[len(l.Nets[n].Layers)-1].Out
	}
}

// OneForm returns the constant form c (c times the constant coordinate).
func (l *Layout) OneForm(c float64) Form { return Scaled(c, l.One) }

// hasTwin reports whether layer k of network 1 exists with the activation
// and width of nl.
func hasTwin(net1 []Layer, k int, nl *nn.Layer) bool {
	return k < len(net1) && net1[k].Act == nl.Act && len(net1[k].Pre) == nl.Out()
}

// neuronAt returns the treatment of neuron i of layer k (Keep if absent).
func neuronAt(ns [][]Neuron, k, i int) Neuron {
	if k >= len(ns) || i >= len(ns[k]) {
		return Keep
	}
	return ns[k][i]
}

// satAt returns the clamp of neuron i of layer k (none if absent).
func satAt(ss [][]Sat, k, i int) Sat {
	if k >= len(ss) || i >= len(ss[k]) {
		return Sat{}
	}
	return ss[k][i]
}

// noiseAt returns the noise radius of neuron i of layer k (0 if absent).
func noiseAt(rs [][]float64, k, i int) float64 {
	if k >= len(rs) || i >= len(rs[k]) {
		return 0
	}
	return rs[k][i]
}

// checkNeurons reports a neuron table longer than the network.
func checkNeurons(net *nn.Network, ns [][]Neuron) error {
	if len(ns) > len(net.Layers) {
		return fmt.Errorf("%d layers of neuron settings for %d layers: %w", len(ns), len(net.Layers), nn.ErrDimension)
	}
	for k, row := range ns {
		if row != nil && len(row) != net.Layers[k].Out() {
			return fmt.Errorf("layer %d: %d neuron settings for %d neurons: %w", k, len(row), net.Layers[k].Out(), nn.ErrDimension)
		}
	}
	return nil
}
