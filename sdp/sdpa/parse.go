package sdpa

import (
	"math"

	"github.com/nnbound/nnbound/sdp"
)

// maxBlockSize bounds |block size|, as the 32-bit indices of CSDP and SDPA do.
const maxBlockSize = math.MaxInt32

// headerLine returns the fields of the next non-blank line, skipping
// comment lines when comments is true.
func (p *parser) headerLine(want string, comments bool) ([]string, error) {
	for {
		line, ok := p.next()
		if !ok {
			return nil, p.eofError(want)
		}
		f := p.fields(line)
		if len(f) == 0 {
			continue
		}
		if c := f[0][0]; comments && (c == '"' || c == '*') {
			continue
		}
		return f, nil
	}
}

// headerInts reads n integers from the next header line; text after the
// n-th integer (or glued to it, as in "2=mDIM") is ignored.
func (p *parser) headerInts(n int, want string, comments bool) ([]int, error) {
	f, err := p.headerLine(want, comments)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, t := range f {
		v, rest, ok := intPrefix(t)
		if !ok {
			break
		}
		out = append(out, v)
		if len(out) == n || rest != "" {
			break
		}
	}
	if len(out) < n {
		if n == 1 {
			return nil, p.errorf(nil, "want %s, found %q", want, clip(f[0]))
		}
		return nil, p.errorf(nil, "want %d %s, found %d", n, want, len(out))
	}
	return out, nil
}

// parse decodes a whole file.
func parse(data, name string) (*sdp.Problem, error) {
	p := &parser{name: name, data: data}

	h, err := p.headerInts(1, "the number of constraint matrices m", true)
	if err != nil {
		return nil, err
	}
	m := h[0]
	if m < 1 {
		return nil, p.errorf(sdp.ErrDimension, "number of constraint matrices m = %d, want at least 1", m)
	}

	h, err = p.headerInts(1, "the number of blocks", false)
	if err != nil {
		return nil, err
	}
	nb := h[0]
	if nb < 1 {
		return nil, p.errorf(sdp.ErrDimension, "number of blocks = %d, want at least 1", nb)
	}

	sizes, err := p.headerInts(nb, "block sizes", false)
	if err != nil {
		return nil, err
	}
	blocks := make([]sdp.Block, nb)
	for b, s := range sizes {
		if s == 0 {
			return nil, p.errorf(sdp.ErrDimension, "block %d has size 0", b+1)
		}
		blocks[b] = sdp.Block{Size: abs(s), Diagonal: s < 0}
	}

	c, err := p.objective(m)
	if err != nil {
		return nil, err
	}

	f, err := p.entries(blocks, m)
	if err != nil {
		return nil, err
	}
	return &sdp.Problem{Blocks: blocks, C: c, F: f}, nil
}

// objective reads the m values of c from the next line; text after them
// is ignored.
func (p *parser) objective(m int) ([]float64, error) {
	f, err := p.headerLine("the objective vector c", false)
	if err != nil {
		return nil, err
	}
	if len(f) < m {
		return nil, p.errorf(sdp.ErrDimension, "objective has %d values, want m = %d", len(f), m)
	}
	c := make([]float64, m)
	for i := range c {
		v, err := parseFloat(f[i])
		if err != nil {
			return nil, p.errorf(nil, "objective value %d: %q is not a number", i+1, clip(f[i]))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, p.errorf(sdp.ErrNotFinite, "objective value %d is %v", i+1, v)
		}
		c[i] = v
	}
	return c, nil
}

// entries reads the entry lines up to the end of the input into m+1
// matrices, in canonical order.
func (p *parser) entries(blocks []sdp.Block, m int) ([]sdp.Matrix, error) {
	f := make([]sdp.Matrix, m+1)
	start := p.pos
	p.startLine = p.line
	for {
		line, ok := p.next()
		if !ok {
			break
		}
		t := p.fields(line)
		if len(t) == 0 {
			continue
		}
		if c := t[0][0]; c == '"' || c == '*' {
			return nil, p.errorf(nil, "comment line after the header (comments are allowed only before it)")
		}
		if len(t) != 5 {
			return nil, p.errorf(nil, "entry has %d fields, want 5 (matrix block i j value)", len(t))
		}
		k, e, err := p.entry(t, blocks, m)
		if err != nil {
			return nil, err
		}
		if e.V != 0 {
			f[k] = append(f[k], e)
		}
	}
	for k := range f {
		var bad *sdp.Entry
		f[k], bad = canonical(f[k])
		if bad != nil {
			return nil, p.overflow(start, k, *bad, blocks, m)
		}
	}
	return f, nil
}

// overflow reports repeated entries at one position whose sum is not
// finite, at the line where the running sum overflows. It rereads the
// entries from offset start; this happens at most once per file.
func (p *parser) overflow(start, k int, e sdp.Entry, blocks []sdp.Block, m int) error {
	p.pos, p.line = start, p.startLine
	sum := 0.0
	for {
		line, ok := p.next()
		if !ok {
			break
		}
		t := p.fields(line)
		if len(t) != 5 {
			continue
		}
		k2, e2, err := p.entry(t, blocks, m)
		if err != nil || k2 != k || e2.Block != e.Block || e2.I != e.I || e2.J != e.J {
			continue
		}
		if sum += e2.V; math.IsInf(sum, 0) {
			break
		}
	}
	return p.errorf(sdp.ErrNotFinite, "repeated entries at F%d block %d (%d,%d) sum to %v",
		k, e.Block+1, e.I+1, e.J+1, e.V)
}

// entry decodes the five fields of one entry line.
func (p *parser) entry(t []string, blocks []sdp.Block, m int) (int, sdp.Entry, error) {
	var ix [4]int
	names := [4]string{"matrix number", "block number", "row index", "column index"}
	for n := range ix {
		v, ok := parseInt(t[n])
		if !ok {
			return 0, sdp.Entry{}, p.errorf(nil, "%s %q is not an integer", names[n], clip(t[n]))
		}
		ix[n] = v
	}
	k, b, i, j := ix[0], ix[1], ix[2], ix[3]
	if k < 0 || k > m {
		return 0, sdp.Entry{}, p.errorf(sdp.ErrDimension, "matrix number %d out of range 0..%d", k, m)
	}
	if b < 1 || b > len(blocks) {
		return 0, sdp.Entry{}, p.errorf(sdp.ErrDimension, "block number %d out of range 1..%d", b, len(blocks))
	}
	blk := blocks[b-1]
	if i < 1 || i > blk.Size || j < 1 || j > blk.Size {
		return 0, sdp.Entry{}, p.errorf(sdp.ErrDimension, "entry (%d,%d) outside block %d of size %d", i, j, b, blk.Size)
	}
	if blk.Diagonal && i != j {
		return 0, sdp.Entry{}, p.errorf(sdp.ErrDimension, "off-diagonal entry (%d,%d) in diagonal block %d", i, j, b)
	}
	v, err := parseFloat(t[4])
	if err != nil {
		return 0, sdp.Entry{}, p.errorf(nil, "value %q is not a number", clip(t[4]))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, sdp.Entry{}, p.errorf(sdp.ErrNotFinite, "value %s is not finite", clip(t[4]))
	}
	if i > j {
		i, j = j, i
	}
	return k, sdp.Entry{Block: b - 1, I: i - 1, J: j - 1, V: v}, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
