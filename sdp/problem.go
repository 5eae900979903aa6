package sdp

import "fmt"

// Block describes one diagonal block of the matrices F_i, X and Y.
type Block struct {
	Size     int  // order of the block (number of diagonal entries if Diagonal)
	Diagonal bool // a non-negative diagonal (LP) block rather than a PSD block
}

// Entry is one entry of a sparse symmetric block matrix. Indices are
// 0-based; only one of (I, J) and (J, I) is stored, conventionally I <= J.
// For a Diagonal block I == J.
type Entry struct {
	Block int
	I, J  int
	V     float64
}

// Matrix is a sparse symmetric block-diagonal matrix as a list of entries.
// Repeated positions are summed.
type Matrix []Entry

// Problem is an SDP in SDPA form. F has len(C)+1 matrices; F[0] is the
// constant matrix F_0 and F[i] multiplies x_i (1-based, as in SDPA files).
//
// Factors, when not nil, has len(C)+1 entries too: the matrix multiplying
// x_i is F[i] plus the sum of the rank-one terms in Factors[i]. Factors[0]
// must be empty. Writers of other formats expand factors into entries.
type Problem struct {
	Blocks  []Block
	C       []float64
	F       []Matrix
	Factors [][]Factor
	// Bases optionally gives PSD blocks a dictionary for their factors
	// (see Basis and Factor.Coef): at most one per block. It changes how
	// the problem is solved, not which problem it is.
	Bases []Basis
}

// NumVars returns m, the number of primal variables x_i.
func (p *Problem) NumVars() int { return len(p.C) }

// Validate checks that p is well-formed: at least one block of positive
// size, len(F) == len(C)+1, every entry inside its block, diagonal-block
// entries on the diagonal, factors (if any) one list per matrix with none
// for F_0, each in a PSD block with distinct indices inside it, and all
// numbers finite. The error names the offending matrix and entry.
func (p *Problem) Validate() error {
	if len(p.Blocks) == 0 {
		return fmt.Errorf("sdp: problem has no blocks: %w", ErrDimension)
	}
	for b, blk := range p.Blocks {
		if blk.Size <= 0 {
			return fmt.Errorf("sdp: block %d has size %d: %w", b+1, blk.Size, ErrDimension)
		}
	}
	if len(p.F) != len(p.C)+1 {
		return fmt.Errorf("sdp: %d constraint matrices for %d variables (want %d): %w",
			len(p.F), len(p.C), len(p.C)+1, ErrDimension)
	}
	for i, c := range p.C {
		if !finite(c) {
			return fmt.Errorf("sdp: c[%d] is %v: %w", i+1, c, ErrNotFinite)
		}
	}
	for i, m := range p.F {
		for _, e := range m {
			if e.Block < 0 || e.Block >= len(p.Blocks) {
				return fmt.Errorf("sdp: F%d: block %d does not exist: %w", i, e.Block+1, ErrDimension)
			}
			blk := p.Blocks[e.Block]
			if e.I < 0 || e.J < 0 || e.I >= blk.Size || e.J >= blk.Size {
				return fmt.Errorf("sdp: F%d: entry (%d,%d) outside block %d of size %d: %w",
					i, e.I+1, e.J+1, e.Block+1, blk.Size, ErrDimension)
			}
			if blk.Diagonal && e.I != e.J {
				return fmt.Errorf("sdp: F%d: off-diagonal entry (%d,%d) in diagonal block %d: %w",
					i, e.I+1, e.J+1, e.Block+1, ErrDimension)
			}
			if !finite(e.V) {
				return fmt.Errorf("sdp: F%d: entry (%d,%d) of block %d is %v: %w",
					i, e.I+1, e.J+1, e.Block+1, e.V, ErrNotFinite)
			}
		}
	}
	if err := p.validateFactors(); err != nil {
		return err
	}
	if err := p.validateBases(); err != nil {
		return err
	}
	return p.validateSize()
}

// MaxWorkspace is the largest workspace, in bytes, that Validate accepts
// (64 GiB): a few dozen dense copies of every PSD block and two of the
// Schur complement. A larger problem cannot be solved by this method on
// any machine we know of, and is refused before anything is allocated.
const MaxWorkspace = 1 << 36

// Workspace returns an estimate of the bytes Solve allocates for p: 8
// bytes times 16 n^2 per PSD block of order n, 2 m^2 for the Schur
// complement and its copy, and 16 n per diagonal block.
func (p *Problem) Workspace() float64 {
	w := 0.0
	for _, b := range p.Blocks {
		n := float64(b.Size)
		if b.Diagonal {
			w += 16 * n
			continue
		}
		w += 16 * n * n
	}
	m := float64(len(p.C))
	return 8 * (w + 2*m*m)
}

// validateSize refuses a problem whose workspace exceeds MaxWorkspace.
func (p *Problem) validateSize() error {
	if w := p.Workspace(); w > MaxWorkspace {
		largest := 0
		for _, b := range p.Blocks {
			if !b.Diagonal {
				largest = max(largest, b.Size)
			}
		}
		return fmt.Errorf("sdp: the solve would need about %.3g GiB (largest PSD block of order %d, %d variables), more than %d GiB: %w",
			w/(1<<30), largest, len(p.C), MaxWorkspace>>30, ErrTooLarge)
	}
	return nil
}

// validateFactors checks Factors as Validate documents.
func (p *Problem) validateFactors() error {
	if p.Factors == nil {
		return nil
	}
	if len(p.Factors) != len(p.C)+1 {
		return fmt.Errorf("sdp: %d factor lists for %d variables (want %d): %w",
			len(p.Factors), len(p.C), len(p.C)+1, ErrDimension)
	}
	if len(p.Factors[0]) != 0 {
		return fmt.Errorf("sdp: F0 has factors, only F1..Fm may: %w", ErrDimension)
	}
	seen := map[int]bool{}
	for i, fs := range p.Factors {
		for k, f := range fs {
			if f.Block < 0 || f.Block >= len(p.Blocks) {
				return fmt.Errorf("sdp: F%d factor %d: block %d does not exist: %w", i, k+1, f.Block+1, ErrDimension)
			}
			blk := p.Blocks[f.Block]
			if blk.Diagonal {
				return fmt.Errorf("sdp: F%d factor %d: block %d is diagonal: %w", i, k+1, f.Block+1, ErrDimension)
			}
			if len(f.U.Index) != len(f.U.Value) {
				return fmt.Errorf("sdp: F%d factor %d: %d indices for %d values: %w",
					i, k+1, len(f.U.Index), len(f.U.Value), ErrDimension)
			}
			if !finite(f.D) {
				return fmt.Errorf("sdp: F%d factor %d: D is %v: %w", i, k+1, f.D, ErrNotFinite)
			}
			clear(seen)
			for t, ix := range f.U.Index {
				switch {
				case ix < 0 || ix >= blk.Size:
					return fmt.Errorf("sdp: F%d factor %d: index %d outside block %d of size %d: %w",
						i, k+1, ix+1, f.Block+1, blk.Size, ErrDimension)
				case seen[ix]:
					return fmt.Errorf("sdp: F%d factor %d: index %d repeated: %w", i, k+1, ix+1, ErrDimension)
				case !finite(f.U.Value[t]):
					return fmt.Errorf("sdp: F%d factor %d: value at index %d is %v: %w",
						i, k+1, ix+1, f.U.Value[t], ErrNotFinite)
				}
				seen[ix] = true
			}
		}
	}
	return nil
}
