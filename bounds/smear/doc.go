// Package smear scores the input coordinates of a box by how much halving
// each would tighten bound propagation on it (the smear of ReluVal and
// NeuroDiff, and a variant for the difference of two networks): the
// branching heuristics of input splitting, shared by package verify's
// branch and bound and package certify's refinement. The scores are
// heuristics computed in float64 from enclosures of bounds.Pair, never
// bounds themselves.
package smear
