package vnnlib

import (
	"fmt"

	"github.com/nnbound/nnbound/spec"
)

// Relational returns the property of a VNN-LIB 1 file as a relational
// property of one network, in VNN-LIB's reading: the input box and, as
// the unsafe condition, the conjunction of the assertions over the
// outputs Y_j, each any formula of and, or and linear comparisons
// (expanded into disjunctive normal form, as for VNN-LIB 2.0 files). The
// property holds ("unsat") when no input of the box satisfies it. A file
// with no assertion over the outputs is an error.
func (s *Spec) Relational() (*spec.Relational, error) {
	if len(s.outs) == 0 {
		return nil, fmt.Errorf("vnnlib: the property asserts nothing on the outputs: %w", ErrIncomplete)
	}
	p := newPairParser(s.file)
	net := &Network{Name: "f",
		Input:  Tensor{Name: "X", Type: "real", Shape: []int{s.Box.Dim()}},
		Output: Tensor{Name: "Y", Type: "real", Shape: []int{max(s.Outputs, 1)}}}
	p.nets = []*Network{net}
	p.names["X"] = &tensorRef{t: &net.Input}
	p.names["Y"] = &tensorRef{out: true, t: &net.Output}
	for _, e := range s.outs {
		d, err := p.outputDNF(indexed(e))
		if err != nil {
			return nil, err
		}
		if err := p.andUnsafe(d, e.line); err != nil {
			return nil, err
		}
	}
	return &spec.Relational{BoxF: s.Box, Unsafe: p.rel.unsafe}, nil
}

// indexed returns a copy of e with the VNN-LIB 1 names X_i and Y_j
// written X[i] and Y[j].
func indexed(e *node) *node {
	c := *e
	if !e.isList {
		if isX, i, ok := variable(e.atom); ok {
			c.atom = fmt.Sprintf("%s[%d]", map[bool]string{true: "X", false: "Y"}[isX], i)
		}
		return &c
	}
	c.list = make([]*node, len(e.list))
	for i, x := range e.list {
		c.list[i] = indexed(x)
	}
	return &c
}
