package nn

// AddTransposedRows adds K^T y to dst (In() values) for y (Out() values)
// that is zero outside the output rows [oh0, oh1) of every channel,
// reading y only there: the transposed map of bound propagation on
// coefficients whose support is a band of rows. It returns the band of
// input rows [ih0, ih1) that can have changed.
func (c *Conv2D) AddTransposedRows(dst, y []float64, oh0, oh1 int) (ih0, ih1 int) {
	oh0, oh1 = max(oh0, 0), min(oh1, c.OutH)
	if oh0 >= oh1 {
		return 0, 0
	}
	c.accumulateRows(dst, y, true, oh0, oh1)
	return c.InputRows(oh0, oh1)
}

// InputRows returns the band [ih0, ih1) of input rows that the output
// rows [oh0, oh1) read.
func (c *Conv2D) InputRows(oh0, oh1 int) (ih0, ih1 int) {
	ih0 = max(0, oh0*c.Stride[0]-c.Pad[0])
	ih1 = min(c.InH, (oh1-1)*c.Stride[0]-c.Pad[0]+(c.KH-1)*c.Dil[0]+1)
	return ih0, max(ih0, ih1)
}
