package dense

// Packing copies a block of an operand into the order in which the
// micro-kernel reads it, so that the kernel's loads are unit-stride and the
// block stays in cache while it is reused. Partial panels are padded with
// zeros, so the kernel always computes a full mr x nr tile.

// packA packs rows [i0, i0+mb) and columns [p0, p0+kb) of op(A) into
// panels of mr rows: element (i, p) of panel r lands at
// dst[r*mr*kb + p*mr + i].
func packA(dst []float64, a *operand, i0, p0, mb, kb int) {
	for r := 0; r < mb; r += mr {
		rows := min(mr, mb-r)
		panel := dst[r*kb : r*kb+mr*kb]
		switch {
		case a.shape != general:
			if rows < mr {
				clear(panel)
			}
			for i := range rows {
				a.fillRow(i0+r+i, p0, p0+kb, panel[i:], mr)
			}
		case a.trans:
			// Element (i, p) of op(A) is a[(p0+p)*ld + i0+i]: a row copy.
			base := a.index(i0+r, p0)
			for p := range kb {
				d := panel[p*mr : p*mr+mr]
				copy(d, a.data[base+p*a.ld:base+p*a.ld+rows])
				clear(d[rows:])
			}
		case rows == mr:
			// Interleave eight rows of A, reading them side by side.
			ld := a.ld
			base := a.index(i0+r, p0)
			r0 := a.data[base : base+kb]
			r1 := a.data[base+ld : base+ld+kb]
			r2 := a.data[base+2*ld : base+2*ld+kb]
			r3 := a.data[base+3*ld : base+3*ld+kb]
			r4 := a.data[base+4*ld : base+4*ld+kb]
			r5 := a.data[base+5*ld : base+5*ld+kb]
			r6 := a.data[base+6*ld : base+6*ld+kb]
			r7 := a.data[base+7*ld : base+7*ld+kb]
			for p := range kb {
				d := panel[p*mr : p*mr+mr]
				d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
				d[4], d[5], d[6], d[7] = r4[p], r5[p], r6[p], r7[p]
			}
		default:
			clear(panel)
			for i := range rows {
				src := a.data[a.index(i0+r+i, p0):]
				src = src[:kb]
				for p, v := range src {
					panel[p*mr+i] = v
				}
			}
		}
	}
}

// packB packs rows [p0, p0+kb) and columns [j0, j0+nb) of op(B) into
// panels of nr columns: element (p, j) of panel s lands at
// dst[s*nr*kb + p*nr + j].
func packB(dst []float64, b *operand, p0, j0, kb, nb int) {
	for s := 0; s < nb; s += nr {
		cols := min(nr, nb-s)
		panel := dst[s*kb : s*kb+nr*kb]
		switch {
		case b.shape != general:
			for p := range kb {
				d := panel[p*nr : p*nr+nr]
				b.fillRow(p0+p, j0+s, j0+s+cols, d, 1)
				clear(d[cols:])
			}
		case !b.trans:
			base := b.index(p0, j0+s)
			for p := range kb {
				d := panel[p*nr : p*nr+nr]
				copy(d, b.data[base+p*b.ld:base+p*b.ld+cols])
				clear(d[cols:])
			}
		default:
			// Element (p, j) of op(B) is b[(j0+j)*ld + p0+p]: a gather.
			if cols < nr {
				clear(panel)
			}
			for j := range cols {
				src := b.data[b.index(p0, j0+s+j):]
				src = src[:kb]
				for p, v := range src {
					panel[p*nr+j] = v
				}
			}
		}
	}
}
