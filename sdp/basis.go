package sdp

import (
	"fmt"
	"math"
)

// basisTol is the difference allowed between a factor's U and its basis
// form W Coef, entry by entry, relative to the largest sum of the
// magnitudes that make up an entry: the basis form is meant to be the
// same vector computed another way, so they differ by rounding only (of
// the order of the vector's scale, not of each entry's: a coefficient
// that should be 0 may come out at rounding level).
const basisTol = 1e-9

// validateBases checks Bases and the factors' Coef: one basis per PSD
// block at most, vectors inside their block with distinct indices and
// finite values, Coef indices inside [0, n+e), and W Coef equal to U
// within basisTol.
func (p *Problem) validateBases() error {
	extra := map[int]int{} // block -> number of basis vectors
	for t, bs := range p.Bases {
		if bs.Block < 0 || bs.Block >= len(p.Blocks) || p.Blocks[bs.Block].Diagonal {
			return fmt.Errorf("sdp: basis %d: block %d is not a PSD block: %w", t+1, bs.Block+1, ErrDimension)
		}
		if _, dup := extra[bs.Block]; dup {
			return fmt.Errorf("sdp: basis %d: block %d has two bases: %w", t+1, bs.Block+1, ErrDimension)
		}
		extra[bs.Block] = len(bs.Vecs)
		for j, v := range bs.Vecs {
			if err := checkSparse(v, p.Blocks[bs.Block].Size); err != nil {
				return fmt.Errorf("sdp: basis %d vector %d: %w", t+1, j+1, err)
			}
		}
	}
	if len(p.Bases) == 0 {
		return nil
	}
	for i, fs := range p.Factors {
		for k, f := range fs {
			e, ok := extra[f.Block]
			if !ok || len(f.Coef.Index) == 0 {
				continue
			}
			n := p.Blocks[f.Block].Size
			if err := checkSparse(f.Coef, n+e); err != nil {
				return fmt.Errorf("sdp: F%d factor %d: coefficients: %w", i, k+1, err)
			}
			if c, ok := p.basisMismatch(f); !ok {
				return fmt.Errorf("sdp: F%d factor %d: W Coef differs from U at index %d: %w", i, k+1, c+1, ErrDimension)
			}
		}
	}
	return nil
}

// checkSparse checks that v has as many values as indices, distinct
// indices in [0, n) and finite values.
func checkSparse(v SparseVec, n int) error {
	if len(v.Index) != len(v.Value) {
		return fmt.Errorf("%d indices for %d values: %w", len(v.Index), len(v.Value), ErrDimension)
	}
	seen := map[int]bool{}
	for t, ix := range v.Index {
		switch {
		case ix < 0 || ix >= n:
			return fmt.Errorf("index %d outside 1..%d: %w", ix+1, n, ErrDimension)
		case seen[ix]:
			return fmt.Errorf("index %d repeated: %w", ix+1, ErrDimension)
		case !finite(v.Value[t]):
			return fmt.Errorf("value at index %d is %v: %w", ix+1, v.Value[t], ErrNotFinite)
		}
		seen[ix] = true
	}
	return nil
}

// basisOf returns the basis of block b, or nil.
func (p *Problem) basisOf(b int) *Basis {
	for t := range p.Bases {
		if p.Bases[t].Block == b {
			return &p.Bases[t]
		}
	}
	return nil
}

// basisMismatch compares W f.Coef with f.U and returns the first index
// where they differ by more than basisTol, and false; or -1 and true.
func (p *Problem) basisMismatch(f Factor) (int, bool) {
	n := p.Blocks[f.Block].Size
	vecs := p.basisOf(f.Block).Vecs
	w := make([]float64, n)   // W Coef
	mag := make([]float64, n) // sum of the magnitudes that make it up
	for t, ix := range f.Coef.Index {
		c := f.Coef.Value[t]
		if ix < n {
			w[ix] += c
			mag[ix] += math.Abs(c)
			continue
		}
		v := vecs[ix-n]
		for s, r := range v.Index {
			w[r] += c * v.Value[s]
			mag[r] += math.Abs(c * v.Value[s])
		}
	}
	for t, ix := range f.U.Index {
		w[ix] -= f.U.Value[t]
		mag[ix] += math.Abs(f.U.Value[t])
	}
	big := 0.0
	for _, m := range mag {
		big = max(big, m)
	}
	for c := range w {
		if math.Abs(w[c]) > basisTol*big {
			return c, false
		}
	}
	return -1, true
}
