package sdpa

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/nnbound/nnbound/sdp"
)

// Write writes p to w in the SDPA sparse format. Low-rank Factors are
// expanded into entries and summed with F's entries, so the file holds
// each position of each matrix once, in the upper triangle, sorted.
// Numbers are written in the shortest form that reads back to the same
// float64 (strconv's 'g' with precision -1), so Decode(Write(p)) gives p's
// matrices exactly, up to that canonical order.
//
// Write returns an error, and writes nothing, when p fails p.Validate or
// its Factors are malformed.
func Write(w io.Writer, p *sdp.Problem) error {
	f, err := expand(p)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	buf = strconv.AppendInt(buf, int64(len(p.C)), 10)
	buf = append(buf, '\n')
	buf = strconv.AppendInt(buf, int64(len(p.Blocks)), 10)
	buf = append(buf, '\n')
	for n, b := range p.Blocks {
		if n > 0 {
			buf = append(buf, ' ')
		}
		s := b.Size
		if b.Diagonal {
			s = -s
		}
		buf = strconv.AppendInt(buf, int64(s), 10)
	}
	buf = append(buf, '\n')
	for n, c := range p.C {
		if n > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendFloat(buf, c, 'g', -1, 64)
	}
	buf = append(buf, '\n')
	for k, m := range f {
		for _, e := range m {
			buf = strconv.AppendInt(buf, int64(k), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(e.Block+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(e.I+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(e.J+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, e.V, 'g', -1, 64)
			buf = append(buf, '\n')
			if len(buf) > 4096 {
				if _, err := bw.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

// expand validates p and returns its matrices with factors expanded, in
// canonical order. p is not modified.
func expand(p *sdp.Problem) ([]sdp.Matrix, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := validateFactors(p); err != nil {
		return nil, err
	}
	f := make([]sdp.Matrix, len(p.F))
	for k := range p.F {
		m := append(sdp.Matrix(nil), p.F[k]...)
		if k < len(p.Factors) {
			for _, fc := range p.Factors[k] {
				m = appendFactor(m, fc)
			}
		}
		var bad *sdp.Entry
		if f[k], bad = canonical(m); bad != nil {
			return nil, fmt.Errorf("sdpa: F%d: entries at (%d,%d) of block %d sum to %v: %w",
				k, bad.I+1, bad.J+1, bad.Block+1, bad.V, sdp.ErrNotFinite)
		}
		for _, e := range f[k] {
			if p.Blocks[e.Block].Diagonal && e.I != e.J {
				return nil, fmt.Errorf("sdpa: F%d: factor has off-diagonal entry (%d,%d) in diagonal block %d: %w",
					k, e.I+1, e.J+1, e.Block+1, sdp.ErrDimension)
			}
		}
	}
	return f, nil
}

// appendFactor appends the upper triangle of D u u^T to m.
func appendFactor(m sdp.Matrix, fc sdp.Factor) sdp.Matrix {
	u := fc.U
	for a := range u.Index {
		for b := range u.Index {
			i, j := u.Index[a], u.Index[b]
			if i > j {
				continue
			}
			m = append(m, sdp.Entry{Block: fc.Block, I: i, J: j, V: fc.D * u.Value[a] * u.Value[b]})
		}
	}
	return m
}

// validateFactors checks the shape and values of p.Factors.
func validateFactors(p *sdp.Problem) error {
	if p.Factors == nil {
		return nil
	}
	if len(p.Factors) != len(p.F) {
		return fmt.Errorf("sdpa: %d factor lists for %d matrices: %w", len(p.Factors), len(p.F), sdp.ErrDimension)
	}
	if len(p.Factors[0]) != 0 {
		return fmt.Errorf("sdpa: F0 has %d factors, want none: %w", len(p.Factors[0]), sdp.ErrDimension)
	}
	for k, fs := range p.Factors {
		for n, fc := range fs {
			if err := validateFactor(p, fc); err != nil {
				return fmt.Errorf("sdpa: F%d factor %d: %w", k, n+1, err)
			}
		}
	}
	return nil
}

func validateFactor(p *sdp.Problem, fc sdp.Factor) error {
	if fc.Block < 0 || fc.Block >= len(p.Blocks) {
		return fmt.Errorf("block %d does not exist: %w", fc.Block+1, sdp.ErrDimension)
	}
	if !finite(fc.D) {
		return fmt.Errorf("D is %v: %w", fc.D, sdp.ErrNotFinite)
	}
	u := fc.U
	if len(u.Index) != len(u.Value) {
		return fmt.Errorf("%d indices for %d values: %w", len(u.Index), len(u.Value), sdp.ErrDimension)
	}
	size := p.Blocks[fc.Block].Size
	seen := make(map[int]bool, len(u.Index))
	for a, i := range u.Index {
		switch {
		case i < 0 || i >= size:
			return fmt.Errorf("index %d outside block %d of size %d: %w", i+1, fc.Block+1, size, sdp.ErrDimension)
		case seen[i]:
			return fmt.Errorf("index %d repeated: %w", i+1, sdp.ErrDimension)
		case !finite(u.Value[a]):
			return fmt.Errorf("value at index %d is %v: %w", i+1, u.Value[a], sdp.ErrNotFinite)
		}
		seen[i] = true
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
