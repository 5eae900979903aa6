package prune

import (
	"fmt"
	"maps"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// removeGraph deletes the chosen channels (neurons) from g: from their
// node (kernel or rows, biases, shape), from every operation per channel
// they pass through (activations, scalings, poolings), and from the
// input of the dense map or convolution that reads them. An operation
// that mixes channels or values of other nodes (Add, Concat, a grouped
// convolution, a selection) or the graph's output on their way is an
// error naming it; g may then be half changed.
func removeGraph(g *nn.Graph, chosen []Neuron) error {
	gone := map[int]map[int]bool{}
	for _, n := range chosen {
		if gone[n.Layer] == nil {
			gone[n.Layer] = map[int]bool{}
		}
		gone[n.Layer][n.Index] = true
	}
	readers := g.Readers()
	labels := make([]string, len(g.Nodes)) // as the nodes were
	for k := range labels {
		labels[k] = g.Label(k)
	}
	for _, k := range slices.Sorted(maps.Keys(gone)) {
		a := g.Nodes[k].Op.(*nn.Affine)
		units := mapUnits(a.M)
		if len(gone[k]) == units {
			return fmt.Errorf("prune: removing all %d channels of %s: %w", units, labels[k], ErrOptions)
		}
		var keep []int
		for c := range units {
			if !gone[k][c] {
				keep = append(keep, c)
			}
		}
		if err := removeOutputs(g, k, labels[k], keep); err != nil {
			return err
		}
		if err := removeDownstream(g, readers, labels, k, k+1, units, keep); err != nil {
			return err
		}
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("prune: after removing channels: %w", err)
	}
	return nil
}

// removeOutputs keeps the output channels keep of affine node k (label
// names it): its kernel's or matrix's units, its biases and its shape.
func removeOutputs(g *nn.Graph, k int, label string, keep []int) error {
	n := &g.Nodes[k]
	a := n.Op.(*nn.Affine)
	units := mapUnits(a.M)
	plane := g.Size(k+1) / units
	switch m := a.M.(type) {
	case *nn.Conv2D:
		if m.Groups != 1 {
			return fmt.Errorf("prune: %s is a grouped convolution: its channels cannot be removed alone (zero them instead): %w", label, ErrOptions)
		}
		var kernel []float64
		for _, c := range keep {
			kernel = append(kernel, mapUnitWeights(m, c)...)
		}
		m.Kernel, m.OutC = kernel, len(keep)
	case nn.DenseMap:
		a.M = nn.DenseMap{W: selectRows(m, keep)}
	}
	a.B = selectBlocks(a.B, keep, plane)
	return setChannels(g, k, units, len(keep))
}

// removeDownstream removes the channels of value v (units of them, keep
// kept) from every reader of v, through operations per channel, up to the
// dense maps and convolutions that read them. owner is the node whose
// channels they are; labels name the nodes as they were, for messages.
func removeDownstream(g *nn.Graph, readers [][]int, labels []string, owner, v, units int, keep []int) error {
	if v == len(g.Nodes) {
		return fmt.Errorf("prune: the channels of %s reach the graph's output: they cannot be removed (zero them instead): %w", labels[owner], ErrOptions)
	}
	plane := g.Size(v) / len(keep) // v's shape already has the kept channels
	refuse := func(r int, why string) error {
		return fmt.Errorf("prune: removing channels of %s: %s %s (zero them instead): %w", labels[owner], labels[r], why, ErrOptions)
	}
	for _, r := range readers[v] {
		n := &g.Nodes[r]
		switch op := n.Op.(type) {
		case nn.Act, nn.Unary:
			n.Shape = slices.Clone(g.Shape(v))
		case *nn.MaxPool:
			if op.C != units {
				return refuse(r, "pools them with other values")
			}
			op.C = len(keep)
			if err := setChannels(g, r, units, len(keep)); err != nil {
				return err
			}
		case *nn.Affine:
			done, err := removeInputs(g, r, units, keep, plane)
			if err != nil {
				return refuse(r, err.Error())
			}
			if done {
				continue
			}
		default:
			return refuse(r, "joins them with other values")
		}
		if err := removeDownstream(g, readers, labels, owner, r+1, units, keep); err != nil {
			return err
		}
	}
	return nil
}

// removeInputs removes the dropped channels from the input of affine node
// r (units channels of plane values each before, keep kept): done is true
// for a dense map or a convolution, which mixes channels, false for a map
// per channel (a scaling, an average pool) whose output carries them on.
// The error says why r cannot.
func removeInputs(g *nn.Graph, r, units int, keep []int, plane int) (done bool, err error) {
	a := g.Nodes[r].Op.(*nn.Affine)
	switch m := a.M.(type) {
	case nn.DenseMap:
		a.M = nn.DenseMap{W: selectCols(m, keep, plane)}
		return true, nil
	case *nn.Conv2D:
		if m.Groups != 1 || m.InC != units {
			return false, fmt.Errorf("is a grouped convolution")
		}
		per := m.KH * m.KW
		var kernel []float64
		for o := range m.OutC {
			row := m.Kernel[o*m.InC*per : (o+1)*m.InC*per]
			for _, c := range keep {
				kernel = append(kernel, row[c*per:(c+1)*per]...)
			}
		}
		m.Kernel, m.InC = kernel, len(keep)
		return true, nil
	case *nn.Scale:
		m.S = selectBlocks(m.S, keep, plane)
		a.B = selectBlocks(a.B, keep, plane)
		return false, setChannels(g, r, units, len(keep))
	case *nn.AvgPool2D:
		if m.C != units {
			return false, fmt.Errorf("pools them with other values")
		}
		m.C = len(keep)
		a.B = selectBlocks(a.B, keep, m.OutH*m.OutW)
		return false, setChannels(g, r, units, len(keep))
	}
	return false, fmt.Errorf("mixes them with other values")
}

// setChannels sets the first axis of node k's shape, units before, to n.
func setChannels(g *nn.Graph, k, units, n int) error {
	s := g.Nodes[k].Shape
	if len(s) == 0 || s[0] != units {
		return fmt.Errorf("prune: %s has shape %v, not %d channels first: %w", g.Label(k), s, units, ErrOptions)
	}
	s[0] = n
	return nil
}

// selectBlocks returns the blocks keep of v, block c being
// v[c*plane : (c+1)*plane] (nil for nil).
func selectBlocks(v []float64, keep []int, plane int) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, 0, len(keep)*plane)
	for _, c := range keep {
		out = append(out, v[c*plane:(c+1)*plane]...)
	}
	return out
}

// selectRows returns the rows keep of m's matrix.
func selectRows(m nn.DenseMap, keep []int) *mat.Dense {
	w := mat.NewDense(len(keep), m.In(), nil)
	for i, r := range keep {
		w.SetRow(i, m.W.RawRowView(r))
	}
	return w
}

// selectCols returns the columns of m's matrix of the channels keep, each
// channel plane consecutive columns.
func selectCols(m nn.DenseMap, keep []int, plane int) *mat.Dense {
	rows := m.Out()
	w := mat.NewDense(rows, len(keep)*plane, nil)
	for i := range rows {
		w.SetRow(i, selectBlocks(m.W.RawRowView(i), keep, plane))
	}
	return w
}
