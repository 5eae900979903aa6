// Package cbf writes semidefinite programs in the Conic Benchmark Format
// (CBF, version 3), the format MOSEK reads, as sdp/sdpa writes the SDPA
// sparse format.
package cbf

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdpa"
)

// Write writes p in the Conic Benchmark Format (CBF, version 3), the
// format MOSEK reads, with the comment lines given first (each prefixed by
// "# "). The SDPA-form problem
//
//	minimise  c^T x  subject to  sum_i F_i x_i - F_0 >= 0  (each block)
//
// becomes m free scalar variables x_0 ... x_{m-1} (CBF counts from 0) with
// objective c; each PSD block b is an affine PSD constraint
//
//	G_b = sum_i x_i H_{b,i} + D_b  in PSD,  H_{b,i} = F_i[b],  D_b = -F_0[b]
//
// (HCOORD, DCOORD; lower triangle), and the diagonal (LP) blocks together
// are one constraint in the non-negative cone L+ (ACOORD, BCOORD), one row
// per diagonal entry.
func Write(w io.Writer, p *sdp.Problem, comments []string) error {
	// Expand the low-rank factors exactly as the SDPA writer does, by
	// a round trip through it: the matrices come back summed and sorted.
	var buf bytes.Buffer
	if err := sdpa.Write(&buf, p); err != nil {
		return err
	}
	q, err := sdpa.Decode(&buf, "problem")
	if err != nil {
		return err
	}
	psdIndex := make([]int, len(q.Blocks)) // PSD constraint of each PSD block
	rowStart := make([]int, len(q.Blocks)) // first L+ row of each diagonal block
	var psdSizes []int
	rows := 0
	for b, blk := range q.Blocks {
		if blk.Diagonal {
			rowStart[b] = rows
			rows += blk.Size
			continue
		}
		psdIndex[b] = len(psdSizes)
		psdSizes = append(psdSizes, blk.Size)
	}

	var obj, acoord, bcoord, hcoord, dcoord []string
	for i, c := range q.C {
		if c != 0 {
			obj = append(obj, fmt.Sprintf("%d %s", i, num(c)))
		}
	}
	for k, m := range q.F {
		for _, e := range m {
			blk := q.Blocks[e.Block]
			v := e.V
			if k == 0 {
				v = -v // D = -F_0, b = -F_0
			}
			switch {
			case blk.Diagonal && k == 0:
				bcoord = append(bcoord, fmt.Sprintf("%d %s", rowStart[e.Block]+e.I, num(v)))
			case blk.Diagonal:
				acoord = append(acoord, fmt.Sprintf("%d %d %s", rowStart[e.Block]+e.I, k-1, num(v)))
			case k == 0:
				// Entries are stored with I <= J; CBF wants the lower triangle.
				dcoord = append(dcoord, fmt.Sprintf("%d %d %d %s", psdIndex[e.Block], e.J, e.I, num(v)))
			default:
				hcoord = append(hcoord, fmt.Sprintf("%d %d %d %d %s", psdIndex[e.Block], k-1, e.J, e.I, num(v)))
			}
		}
	}

	bw := bufio.NewWriter(w)
	for _, c := range comments {
		fmt.Fprintln(bw, strings.TrimRight("# "+c, " "))
	}
	fmt.Fprint(bw, "VER\n3\n\nOBJSENSE\nMIN\n\n")
	fmt.Fprintf(bw, "VAR\n%d 1\nF %d\n\n", len(q.C), len(q.C))
	if len(psdSizes) > 0 {
		fmt.Fprintf(bw, "PSDCON\n%d\n", len(psdSizes))
		for _, s := range psdSizes {
			fmt.Fprintf(bw, "%d\n", s)
		}
		fmt.Fprintln(bw)
	}
	if rows > 0 {
		fmt.Fprintf(bw, "CON\n%d 1\nL+ %d\n\n", rows, rows)
	}
	section := func(name string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(bw, "%s\n%d\n%s\n\n", name, len(lines), strings.Join(lines, "\n"))
	}
	section("OBJACOORD", obj)
	section("ACOORD", acoord)
	section("BCOORD", bcoord)
	section("HCOORD", hcoord)
	section("DCOORD", dcoord)
	return bw.Flush()
}

// num formats a number so that it reads back exactly.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
