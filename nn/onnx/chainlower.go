package onnx

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// MaxDenseConvEntries is the largest dense matrix, in entries, that Read
// lowers a Conv node to: 2^20 float64 values, 8 MiB. A larger Conv is a
// structured layer (nn.Layer.Conv).
const MaxDenseConvEntries = 1 << 20

// MaxLoweredEntries is the largest dense matrix, in entries, that Read
// lowers one AveragePool or GlobalAveragePool node to: 2^24 float64
// values, 128 MiB. A larger one stays a pool in the graph (ReadGraph), and
// is a depthwise convolution in the chain where it counts the padding,
// ErrNotChain otherwise.
const MaxLoweredEntries = 1 << 24

// maxGranted bounds the values that the lowered nodes of one file may add
// to its budget (512 MiB of float64): the lowered matrices are justified by
// the declared shapes, not by the size of the file.
const maxGranted = 1 << 26

// lowerSmall replaces, for Decode's chain, each convolution and scaling
// whose dense matrix has at most MaxDenseConvEntries entries and each
// average pool of at most MaxLoweredEntries by that matrix, as the
// consumers that need dense layers (the SDP, the writers of other formats)
// can then read them, within the budget (raised by what the lowered
// matrices need, up to maxGranted). It returns the descriptions of
// Info.Lowered.
func lowerSmall(g *nn.Graph, bud *budget) ([]string, error) {
	var lowered []string
	for k, n := range g.Nodes {
		a, ok := n.Op.(*nn.Affine)
		if !ok {
			continue
		}
		var w *mat.Dense
		var what string
		in, out := a.M.In(), a.M.Out()
		switch m := a.M.(type) {
		case *nn.Conv2D:
			what = fmt.Sprintf("Conv %dx%dx%d -> %dx%dx%d", m.InC, m.InH, m.InW, m.OutC, m.OutH, m.OutW)
			if out > MaxDenseConvEntries/in {
				lowered = append(lowered, fmt.Sprintf("%s (structured, %d kernel values)", what, len(m.Kernel)))
				continue
			}
			if err := grantDense(bud, out, in); err != nil {
				return nil, err
			}
			w = m.Dense()
		case *nn.AvgPool2D:
			what = fmt.Sprintf("AveragePool %dx%dx%d -> %dx%dx%d", m.C, m.InH, m.InW, m.C, m.OutH, m.OutW)
			if out > MaxLoweredEntries/in {
				continue // the chain holds it as a depthwise convolution, or refuses it
			}
			if err := grantDense(bud, out, in); err != nil {
				return nil, err
			}
			w = poolDense(m)
		case *nn.RowMap: // a chain holds dense layers
			if err := grantDense(bud, out, in); err != nil {
				return nil, err
			}
			w = m.Dense()
		case *nn.Scale:
			if out > MaxDenseConvEntries/in {
				continue // the chain holds it as a depthwise convolution, or refuses it
			}
			if err := grantDense(bud, out, in); err != nil {
				return nil, err
			}
			w = mat.NewDense(out, in, nil)
			for i, v := range m.S {
				w.Set(i, i, v)
			}
		default:
			continue
		}
		if what == "" {
			g.Nodes[k].Op = &nn.Affine{M: nn.DenseMap{W: w}, B: a.B, Int: a.Int}
			continue
		}
		g.Nodes[k].Op = &nn.Affine{M: nn.DenseMap{W: w}, B: a.B, Int: a.Int}
		lowered = append(lowered, fmt.Sprintf("%s (%d x %d)", what, out, in))
	}
	return lowered, nil
}

// grantDense raises the budget by, and takes, the r x c entries of a
// lowered matrix.
func grantDense(bud *budget, r, c int) error {
	if err := bud.grant(r * c); err != nil {
		return err
	}
	return bud.take(r * c)
}

// poolDense returns the matrix of the average pool p.
func poolDense(p *nn.AvgPool2D) *mat.Dense {
	w := mat.NewDense(p.Out(), p.In(), nil)
	in, out := p.InH*p.InW, p.OutH*p.OutW
	var win []int
	for o := range out {
		win = p.Window(o, win[:0])
		v := 1 / float64(len(win))
		if p.CountPad {
			v = 1 / float64(p.KH*p.KW)
		}
		for c := range p.C {
			for _, j := range win {
				w.Set(c*out+o, c*in+j, v)
			}
		}
	}
	return w
}

// halfClips returns layers with each hardtanh that has a bound of the
// largest float64 magnitude (the graph's exact clipping with one infinite
// bound, min(x, hi) or max(x, lo)) replaced by its affine map and
// nn.Clip's ReLU layers, exact in real arithmetic: the SDP's quadratic
// constraints of a hardtanh use both bounds, which must be of moderate
// size. A quantiser before the activation stays with the map, one after it
// goes to the last clipping layer.
func halfClips(layers []nn.Layer) ([]nn.Layer, error) {
	out := make([]nn.Layer, 0, len(layers))
	for _, l := range layers {
		a := l.Act
		if a.Kind != nn.HardTanh || (a.Lo != -math.MaxFloat64 && a.Hi != math.MaxFloat64) {
			out = append(out, l)
			continue
		}
		lo, hi := a.Lo, a.Hi
		if lo == -math.MaxFloat64 {
			lo = math.Inf(-1)
		}
		if hi == math.MaxFloat64 {
			hi = math.Inf(1)
		}
		n := l.Out()
		clip, err := nn.Clip(slices.Repeat([]float64{lo}, n), slices.Repeat([]float64{hi}, n))
		if err != nil {
			return nil, err
		}
		post := l.Post
		l.Act, l.Post = nn.Activation{Kind: nn.Identity}, nil
		clip[len(clip)-1].Post = post
		out = append(append(out, l), clip...)
	}
	return out, nil
}

// grant raises the budget by n values, within maxGranted over the file.
func (b *budget) grant(n int) error {
	if n < 0 || n > maxGranted-b.granted {
		return fmt.Errorf("the lowered operators need more than %d values in all: %w", maxGranted, ErrTooLarge)
	}
	b.granted += n
	b.left += n
	return nil
}
