// Package report prints nnbound's results: aligned text and Markdown
// tables, JSON, and figures drawn with a small renderer of its own.
//
// It knows nothing of networks or solvers: callers pass plain numbers.
// Figures are written as PNG or SVG, chosen by the file's extension, and
// always atomically (a temporary file renamed into place), so an
// interrupted run never leaves a half-written figure.
//
// The figures:
//
//   - ErrorCurve (one input): the observed error |f1(x) - f2(x2)| and the
//     certified bound against the input on a log scale, with the
//     quantisation steps marked, like Fig. 3a of Li, Drummond and Duncan
//     (L4DC 2021);
//   - TightnessMap (two inputs): the tightness T = ln(bound^2) - ln(err^2)
//     over a grid of the box as a heat map;
//   - RatioHistogram (more inputs): a histogram of bound / error over
//     sampled inputs;
//   - SweepFigure: certified bound and observed error against the number
//     of fractional bits, on a log scale.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/internal/numtext"
)

// Align is the alignment of a table column.
type Align int

// The alignments. Auto right-aligns a column whose cells all look like
// numbers and left-aligns the others.
const (
	Auto Align = iota
	Left
	Right
)

var alignNames = [...]string{"auto", "left", "right"}

// String returns the alignment's name.
func (a Align) String() string {
	if a < 0 || int(a) >= len(alignNames) {
		return fmt.Sprintf("Align(%d)", int(a))
	}
	return alignNames[a]
}

// Table is a table of text cells with a header row.
type Table struct {
	Header []string
	// Align holds the alignment of each column; missing entries are Auto.
	Align []Align
	Rows  [][]string
}

// NewTable returns an empty table with the given column headers.
func NewTable(header ...string) *Table { return &Table{Header: header} }

// AddRow appends a row; missing cells are empty, extra cells are an error
// of the caller and panic.
func (t *Table) AddRow(cells ...string) {
	if len(cells) > len(t.Header) {
		panic(fmt.Sprintf("report: row of %d cells in a table of %d columns", len(cells), len(t.Header)))
	}
	row := make([]string, len(t.Header))
	copy(row, cells)
	t.Rows = append(t.Rows, row)
}

// WriteText writes t as aligned plain text: columns separated by two
// spaces, the header underlined with dashes, headers aligned like their
// column.
//
//	FB   bound  observed
//	--  ------  --------
//	 1  0.5231    0.4120
func (t *Table) WriteText(w io.Writer) error {
	widths, right := t.layout()
	var b strings.Builder
	line := func(cells []string) {
		var l strings.Builder
		for j, c := range cells {
			if j > 0 {
				l.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[j]-runeLen(c))
			if right[j] {
				l.WriteString(pad + c)
			} else {
				l.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	line(t.Header)
	rule := make([]string, len(widths))
	for j, n := range widths {
		rule[j] = strings.Repeat("-", n)
	}
	line(rule)
	for _, r := range t.Rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes t as a GitHub Markdown table.
func (t *Table) WriteMarkdown(w io.Writer) error {
	widths, right := t.layout()
	for j := range widths {
		widths[j] = max(widths[j], 3)
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for j, c := range cells {
			c = strings.ReplaceAll(c, "|", `\|`)
			pad := strings.Repeat(" ", max(widths[j]-runeLen(c), 0))
			if right[j] {
				b.WriteString(" " + pad + c + " |")
			} else {
				b.WriteString(" " + c + pad + " |")
			}
		}
		b.WriteString("\n")
	}
	line(t.Header)
	b.WriteString("|")
	for j, n := range widths {
		if right[j] {
			b.WriteString(" " + strings.Repeat("-", n-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", n) + " |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// layout returns the width of each column and whether it is right-aligned.
func (t *Table) layout() (widths []int, right []bool) {
	n := len(t.Header)
	widths = make([]int, n)
	right = make([]bool, n)
	for j := range n {
		widths[j] = runeLen(t.Header[j])
		numeric := len(t.Rows) > 0
		for _, r := range t.Rows {
			widths[j] = max(widths[j], runeLen(r[j]))
			numeric = numeric && looksNumeric(r[j])
		}
		a := Auto
		if j < len(t.Align) {
			a = t.Align[j]
		}
		right[j] = a == Right || (a == Auto && numeric)
	}
	return widths, right
}

func runeLen(s string) int { return len([]rune(s)) }

// looksNumeric reports whether a cell holds a number (possibly with a
// trailing unit or percent sign), or a placeholder for a missing one.
func looksNumeric(s string) bool {
	s = strings.TrimSpace(s)
	switch s {
	case "", "-", "—", "n/a", "inf", "+inf", "-inf", "NaN":
		return true
	}
	s = strings.TrimRight(s, "%sx×")
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// Float formats x with sig significant digits in the shortest of plain or
// exponent notation, with exponents written without padding ("1.5e-7").
// Infinities print as "inf" and "-inf", NaN as "NaN".
func Float(x float64, sig int) string { return numtext.Float(x, sig) }

// Up is Float rounded up, for upper bounds: the number printed is at
// least x.
func Up(x float64, sig int) string { return numtext.Up(x, sig) }

// Seconds formats a duration in seconds with three significant digits
// ("0.0123 s", "1.52 s", "153 s").
func Seconds(s float64) string {
	if s >= 100 {
		return strconv.FormatFloat(math.Round(s), 'f', 0, 64) + " s"
	}
	return Float(s, 3) + " s"
}

// Ratio formats a bound / error ratio with three decimals ("1.002"), or
// "-" when it is not finite.
func Ratio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}
