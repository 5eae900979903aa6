package nn

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// ErrNotChain reports a graph that is not a chain of layers (a residual
// join, a concatenation, a max pool), given to code written for chains.
var ErrNotChain = errors.New("graph is not a chain of layers")

// chainDenseLimit is the largest dense matrix, in entries, that Chain
// builds for a map a Layer cannot hold structured (a selection, a scaling
// that is not per channel).
const chainDenseLimit = 1 << 22

// Graph returns n as a graph: per layer an Affine node, then the
// pre-activation quantiser, the activation (none for Identity) and the
// output quantiser, each a node of its own; the input quantiser first.
func (n *Network) Graph() *Graph {
	g := &Graph{InputShape: []int{n.InputSize()}}
	if c := n.Layers[0].Conv; c != nil {
		g.InputShape = []int{c.InC, c.InH, c.InW}
	}
	shape := g.InputShape
	add := func(op Op, s []int) {
		g.Nodes = append(g.Nodes, Node{Op: op, Inputs: []int{len(g.Nodes)}, Shape: s})
		shape = s
	}
	if n.Input != nil {
		add(&Quantise{n.Input}, shape)
	}
	for _, l := range n.Layers {
		if l.Conv != nil {
			add(&Affine{M: l.Conv, B: l.B, Int: l.Int}, []int{l.Conv.OutC, l.Conv.OutH, l.Conv.OutW})
		} else {
			add(&Affine{M: DenseMap{l.W}, B: l.B, Int: l.Int}, []int{l.Out()})
		}
		if l.Pre != nil {
			add(&Quantise{l.Pre}, shape)
		}
		if l.Act.Kind != Identity {
			add(Act{l.Act}, shape)
		}
		if l.Post != nil {
			add(&Quantise{l.Post}, shape)
		}
	}
	return g
}

// Chain returns g as a chain Network when g is a path of the chain's
// pattern: an optional input quantiser, then per layer an affine map, an
// optional quantiser, an optional activation and an optional quantiser (a
// quantiser repeated, as PyTorch exports a quantised Flatten, counts once). A
// map a Layer cannot hold (a selection, a scaling, an average pool) becomes
// a convolution where it is one per channel, a dense matrix where that is
// small, and an error otherwise; an activation with no map before it gets
// an identity map; a clipping with bounds per value (graphclip.go)
// becomes a selection and Clip's layers, exact in real arithmetic but not
// to the bit. The
// network shares g's parameters. The error wraps
// ErrNotChain and names the first node off the pattern.
func (g *Graph) Chain() (*Network, error) {
	net := &Network{}
	var cur *Layer // the layer being filled
	stage := 0     // of cur: 1 after the map, 2 after Pre, 3 after Act, 4 after Post
	readers := g.Readers()
	for k := 0; k < len(g.Nodes); k++ {
		n := g.Nodes[k]
		if src, lo, hi, span, ok := g.clipGroup(k, readers); ok {
			sel, err := chainLayer(&Affine{M: &Gather{N: g.Size(k), Index: src}}, g.Shape(k))
			var layers []Layer
			if err == nil {
				layers, err = Clip(lo, hi)
			}
			if err != nil {
				return nil, fmt.Errorf("nn: %s: %w", g.Label(k), err)
			}
			net.Layers = append(append(net.Layers, sel), layers...)
			cur, stage = &net.Layers[len(net.Layers)-1], 3
			if cur.Act.Kind == Identity {
				stage = 1
			}
			k += span - 1
			continue
		}
		if len(n.Inputs) != 1 || n.Inputs[0] != k {
			return nil, fmt.Errorf("nn: %s reads values %v: %w", g.Label(k), n.Inputs, ErrNotChain)
		}
		switch op := n.Op.(type) {
		case *Affine:
			l, err := chainLayer(op, g.Shape(k))
			if err != nil {
				return nil, fmt.Errorf("nn: %s: %w", g.Label(k), err)
			}
			net.Layers = append(net.Layers, l)
			cur, stage = &net.Layers[len(net.Layers)-1], 1
		case *Quantise:
			if prev, ok := g.prevQuantise(k); ok && prev.Q.Equal(op.Q) {
				continue // q(q(v)) = q(v): a dequantised value is on q's grid
			}
			switch {
			case cur == nil && net.Input == nil:
				net.Input = op.Q
			case cur != nil && stage == 1:
				cur.Pre, stage = op.Q, 2
			case cur != nil && stage < 4:
				cur.Post, stage = op.Q, 4
			default:
				return nil, fmt.Errorf("nn: %s: two quantisers in a row: %w", g.Label(k), ErrNotChain)
			}
		case Act:
			if cur == nil || stage >= 3 {
				l, err := identityLayer(g.Shape(k))
				if err != nil {
					return nil, fmt.Errorf("nn: %s: %w", g.Label(k), err)
				}
				net.Layers = append(net.Layers, l)
				cur = &net.Layers[len(net.Layers)-1]
			}
			cur.Act, stage = op.Act, 3
		default:
			return nil, fmt.Errorf("nn: %s: %w", g.Label(k), ErrNotChain)
		}
	}
	if len(net.Layers) == 0 {
		l, err := identityLayer(g.InputShape)
		if err != nil {
			return nil, err
		}
		net.Layers = append(net.Layers, l)
	}
	return net, nil
}

// prevQuantise returns the quantiser node that node k reads when it is the
// node just before k.
func (g *Graph) prevQuantise(k int) (*Quantise, bool) {
	if k == 0 || g.Nodes[k].Inputs[0] != k { // value k is node k-1's output
		return nil, false
	}
	q, ok := g.Nodes[k-1].Op.(*Quantise)
	return q, ok
}

// chainLayer returns the layer of the affine map a, whose input has shape
// in, with Identity activation.
func chainLayer(a *Affine, in []int) (Layer, error) {
	b := a.B
	if b == nil {
		b = make([]float64, a.M.Out())
	}
	l := Layer{B: b, Act: Activation{Kind: Identity}, Int: a.Int}
	switch m := a.M.(type) {
	case DenseMap:
		l.W = m.W
		return l, nil
	case *RowMap:
		l.W = m.Dense()
		return l, nil
	case *Conv2D:
		l.Conv = m
		return l, nil
	case *AvgPool2D:
		if m.CountPad {
			l.Conv = depthwise(m.C, m.InH, m.InW, m.OutH, m.OutW, m.KH, m.KW, m.Stride, m.Pad, m.Dil,
				1/float64(m.KH*m.KW), nil)
			return l, nil
		}
	case *Scale:
		if len(in) == 3 && perChannel(m.S, in[0]) {
			plane := in[1] * in[2]
			f := make([]float64, in[0])
			for c := range f {
				f[c] = m.S[c*plane]
			}
			l.Conv = depthwise(in[0], in[1], in[2], in[1], in[2], 1, 1, [2]int{1, 1}, [2]int{}, [2]int{1, 1}, 0, f)
			return l, nil
		}
	}
	if a.M.Out() > chainDenseLimit/max(a.M.In(), 1) {
		return Layer{}, fmt.Errorf("%s as a %dx%d matrix: %w", (&Affine{M: a.M}).Describe(), a.M.Out(), a.M.In(), ErrNotChain)
	}
	l.W = denseOf(a.M)
	return l, nil
}

// identityLayer returns the layer y = x on values of shape s: a 1x1
// depthwise convolution for an image, a dense identity otherwise.
func identityLayer(s []int) (Layer, error) {
	n := shapeSize(s)
	if len(s) == 3 {
		c := depthwise(s[0], s[1], s[2], s[1], s[2], 1, 1, [2]int{1, 1}, [2]int{}, [2]int{1, 1}, 1, nil)
		return Layer{Conv: c, B: make([]float64, n), Act: Activation{Kind: Identity}}, nil
	}
	if n > chainDenseLimit/n {
		return Layer{}, fmt.Errorf("identity map of %d values: %w", n, ErrNotChain)
	}
	w := mat.NewDense(n, n, nil)
	for i := range n {
		w.Set(i, i, 1)
	}
	return AffineLayer(w, make([]float64, n)), nil
}

// depthwise returns the convolution of one kernel per channel of c
// channels, every kernel value v (or f[c] where f is not nil).
func depthwise(c, inH, inW, outH, outW, kh, kw int, stride, pad, dil [2]int, v float64, f []float64) *Conv2D {
	k := make([]float64, c*kh*kw)
	for i := range k {
		if f != nil {
			k[i] = f[i/(kh*kw)]
		} else {
			k[i] = v
		}
	}
	return &Conv2D{InC: c, InH: inH, InW: inW, OutC: c, OutH: outH, OutW: outW, KH: kh, KW: kw,
		Stride: stride, Pad: pad, Dil: dil, Groups: c, Kernel: k}
}

// perChannel reports whether s is constant over each of c equal blocks.
func perChannel(s []float64, c int) bool {
	if c < 1 || len(s)%c != 0 {
		return false
	}
	plane := len(s) / c
	for i, v := range s {
		if v != s[i/plane*plane] {
			return false
		}
	}
	return true
}

// denseOf returns the matrix of m, column by column.
func denseOf(m Linear) *mat.Dense {
	r, c := m.Out(), m.In()
	w := mat.NewDense(r, c, nil)
	e, col := make([]float64, c), make([]float64, r)
	for j := range c {
		e[j] = 1
		m.Apply(col, e)
		w.SetCol(j, col)
		e[j] = 0
	}
	return w
}
