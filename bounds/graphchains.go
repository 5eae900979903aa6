package bounds

import "github.com/nnbound/nnbound/nn"

// Two chains for the difference of an affine node.
//
// The difference of an affine node of the difference graph,
//
//	d' = M2 d + (M2 - M1) z + (B2 - B1),
//
// costs back-substitution three products per row (M2^T on d, (M2 - M1)^T
// and M1^T on z). Since z + d is the second network's value y,
//
//	d' = (M2 y + B2) - (M1 z + B1) = y' - z',
//
// and z' is the first network's node anyway, a row on d' needs two: M2^T
// on y and M1^T on z (the coefficients on z and d of the relaxations below
// fold into those on z and y through the value y = z + d). The node
// chainDiff is d' written so: back-substitution routes its coefficients
// to y' and -z' (exact), and its enclosure is the intersection of y' - z'
// with that of the NeuroDiff form d' above (kept in the graph as a value
// that only the enclosures read), which is the tighter of the two where
// y' and z' are wide. A row on the second network's value z' + d' (the
// third input of a pair node) gets coefficients c on z' from the sum and
// -c from d': they cancel exactly, back-substitution drops the zero
// buffer, and the row costs two products too.

// chainDiff is y' - z' (inputs 0 and 1) with an enclosure also bounded by
// that of input 2, the same value in NeuroDiff's form.
type chainDiff struct{}

// Eval sets dst to in[0] - in[1].
func (chainDiff) Eval(dst []float64, in [][]float64) {
	for i, y := range in[0] {
		dst[i] = y - in[1][i]
	}
}

// Describe names the node.
func (chainDiff) Describe() string { return "diff chains" }

// chainImage returns the enclosure of a chainDiff node on its inputs' bounds.
func chainImage(in [][]Interval) []Interval {
	out := make([]Interval, len(in[0]))
	for i, y := range in[0] {
		out[i] = y.Sub(in[1][i]).Intersect(in[2][i])
	}
	return out
}

// chainNode appends the nodes of d' = y' - z' (see above) for the affine
// node a2 of the second network, whose first network's node gives value
// zOut from value z, and old, the difference in NeuroDiff's form, with d
// the difference of the input; it returns the value of d'.
func (pg *pairGraph) chainNode(a2 *nn.Affine, z, d, zOut, old int, shape []int) int {
	y := pg.sumOf(z, d)
	yOut := pg.add(nn.Node{Op: a2, Inputs: []int{y}, Shape: shape})
	dOut := pg.add(nn.Node{Op: chainDiff{}, Inputs: []int{yOut, zOut, old}, Shape: shape})
	pg.ysum[dOut] = yOut
	return dOut
}

// sumOf returns a value equal to z + d, d a difference paired with the
// first network's value z: the second network's value when the graph has
// it, else a new Add node (kept for the next reader).
func (pg *pairGraph) sumOf(z, d int) int {
	if y, ok := pg.ysum[d]; ok {
		return y
	}
	y := pg.add(nn.Node{Op: nn.Add{}, Inputs: []int{z, d}, Shape: pg.g.Shape(z)})
	pg.ysum[d] = y
	return y
}
