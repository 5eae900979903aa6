// Package sdpa reads and writes semidefinite programs in the SDPA sparse
// format (".dat-s"), the format of SDPLIB and the input of CSDP, SDPA and
// DSDP. A file holds, in order:
//
//	"... or *...            optional comment lines
//	m                       number of constraint matrices (x variables)
//	nblocks                 number of diagonal blocks
//	s_1 s_2 ... s_nblocks   block sizes; negative for a diagonal (LP) block
//	c_1 c_2 ... c_m         the objective vector, on one line
//	k b i j v               one entry per line: F_k[b](i,j) = v, k = 0..m
//
// which is the problem (see package sdp)
//
//	minimise c^T x  subject to  sum_k F_k x_k - F_0  positive semidefinite.
//
// Details that readers disagree on are settled as follows.
//
//   - The characters , { } ( ) count as spaces everywhere.
//   - On the four header lines, text after the numbers the line must hold
//     is ignored ("2 = mDIM" reads as 2), as CSDP and SDPA do.
//   - Comment lines are allowed only before the header; blank lines
//     anywhere.
//   - An entry may be given in either triangle; (i,j) and (j,i) are the
//     same position. An off-diagonal entry in a diagonal block is an error.
//   - Entries equal to zero are dropped (CSDP does the same).
//   - Numbers are read by strconv.ParseFloat, plus Fortran's D exponent
//     (1.5D+00); infinities and NaN are errors.
//   - Repeated entries at one position are summed, as sdp.Matrix defines.
//     The C solvers disagree with each other here: CSDP 6.2 rejects the
//     file ("Duplicate entry"), SDPA 7.3 keeps the last value, DSDP 5.8
//     prints a read error. A file that repeats entries is therefore not
//     portable. Giving both (i,j) and (j,i) counts as repeating the entry,
//     so the value is doubled, not mirrored.
//   - Indices are 1-based in the file and 0-based in sdp.Problem; block
//     sizes must fit in 31 bits.
//
// The matrices of the returned problem are sorted by (block, i, j) with
// i <= j, one entry per position.
//
// Malformed input is reported as a *ParseError, "file:line: what is
// wrong", and never causes a panic. Memory use is bounded by a small
// multiple of the input size, whatever the header declares.
package sdpa

import (
	"errors"
	"fmt"
	"io"

	"github.com/nnbound/nnbound/internal/gzfile"
	"github.com/nnbound/nnbound/sdp"
)

// ErrSyntax is wrapped by every *ParseError.
var ErrSyntax = errors.New("malformed SDPA file")

// ParseError reports malformed input at a line of a file.
type ParseError struct {
	File string // name of the input, as given to Decode or Read
	Line int    // 1-based line number
	Msg  string // what is wrong
	// Err is an extra sentinel the error wraps besides ErrSyntax, such as
	// sdp.ErrDimension or sdp.ErrNotFinite, or nil.
	Err error
}

// Error returns "file:line: msg".
func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Unwrap returns ErrSyntax and, when set, e.Err.
func (e *ParseError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrSyntax}
	}
	return []error{ErrSyntax, e.Err}
}

// Read reads the SDPA sparse file at path, which may be gzipped (p.dat-s.gz,
// or any file starting with the gzip magic bytes; p.dat-s.gz is read for
// p.dat-s when p.dat-s is missing or differs from it, see internal/gzfile).
// Errors name the file read.
func Read(path string) (*sdp.Problem, error) {
	f, err := gzfile.Open(path, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return parse(string(data), f.Name)
}

// Decode reads an SDPA sparse file from r; name is used in error messages.
func Decode(r io.Reader, name string) (*sdp.Problem, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return parse(string(data), name)
}
