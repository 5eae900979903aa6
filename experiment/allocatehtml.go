package experiment

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/nnbound/nnbound/agree"
	"github.com/nnbound/nnbound/report"
)

// WriteHTML writes the allocation r as one HTML page (plain HTML with an
// inline SVG figure, no script): the question (t), the single widths
// certified, the per-layer table with the totals and the certified
// bound, the chosen copy's certificate (CertReport), a figure of the weight bits per layer beside the single
// width's, and the provenance p (command, versions, input files). The
// page holds no run times, so that the same run makes the same page.
func (r *AllocationResult) WriteHTML(w io.Writer, t AllocationText, p agree.Provenance) error {
	tpl, err := template.New("allocation").Parse(allocationHTML)
	if err != nil {
		panic(err) // the page is a constant
	}
	width, what := "FB", "fractional bits (fixed point) per layer"
	if r.Scheme != "" {
		width, what = "width", "the bits of each layer's weights; copies: "+r.Scheme
	}
	sweep := SweepTable(r.Sweep, []PruneLevel{{}}, true)
	sweep.Header[0] = width
	sweep.Header, sweep.Rows = sweep.Header[:4], trimRows(sweep.Rows, 4) // no times
	d := allocationPage{R: r, T: t, P: p, Target: report.Float(float64(r.TargetError), 4), What: what, Width: width, Sweep: sweep}
	if r.Met() {
		d.Layers = AllocationTable(r.Layers, r.SingleLayers)
		d.Bound = report.Up(float64(r.Bound), 4)
		d.Fewer = fmt.Sprintf("%.1f %%", 100*float64(r.SingleBits-r.TotalBits)/float64(r.SingleBits))
		d.Figure = template.HTML(bitsFigure(r.Layers, r.SingleLayers))
		var cert strings.Builder
		if err := (CertReport{HideTimes: true}).Write(&cert, r.Certificate); err != nil {
			return err
		}
		d.Certificate = cert.String()
	}
	return tpl.Execute(w, d)
}

// allocationPage is the data of allocationHTML.
type allocationPage struct {
	R                   *AllocationResult
	T                   AllocationText
	P                   agree.Provenance
	Target, What, Width string
	Bound, Fewer        string
	Sweep, Layers       *report.Table
	Figure              template.HTML
	Certificate         string
}

// trimRows returns the first n cells of every row.
func trimRows(rows [][]string, n int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:min(n, len(r))]
	}
	return out
}

// bitsFigure returns an SVG bar chart of the weight bits of each layer,
// the allocation's beside the single width's.
func bitsFigure(layers, single []LayerWidth) string {
	const w, h, left, bottom, top = 480, 220, 60, 30, 10
	peak := 1
	for k := range layers {
		peak = max(peak, layers[k].Bits, single[k].Bits)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="bits" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="weight bits per layer">`, w, h, w, h)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#222"/>`, left, h-bottom, w-10, h-bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="end">%d</text>`, left-4, top+10, peak)
	slot := float64(w-left-10) / float64(len(layers))
	for k := range layers {
		for i, v := range []int{layers[k].Bits, single[k].Bits} {
			bh := float64(h-bottom-top) * float64(v) / float64(peak)
			x := float64(left) + slot*float64(k) + slot*(0.15+0.35*float64(i))
			fill := []string{"#3b7dd8", "#bbbbbb"}[i]
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>layer %d: %d bits</title></rect>`,
				x, float64(h-bottom)-bh, slot*0.3, bh, fill, k, v)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">layer %d</text>`, float64(left)+slot*(float64(k)+0.5), h-bottom+15, k)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// allocationHTML is the template of AllocationResult.WriteHTML.
const allocationHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Per-layer allocation: {{.T.Network}}</title>
<style>
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: right; }
pre { background: #f4f4f4; padding: 0.7em; overflow-x: auto; }
</style>
</head>
<body>
<h1>Per-layer allocation</h1>
<p id="question">{{.T.Network}}; input box {{.T.Box.Describe}}, the copy fed the same input. Target:
certified bound &lt;= {{.Target}} with the fewest weight bits, choosing {{.What}}.</p>

<h2>Single widths</h2>
<table id="sweep">
<tr>{{range .Sweep.Header}}<th>{{.}}</th>{{end}}</tr>
{{- range .Sweep.Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{- end}}
</table>

<h2>Allocation</h2>
{{- if .Layers}}
<table id="layers">
<tr>{{range .Layers.Header}}<th>{{.}}</th>{{end}}</tr>
{{- range .Layers.Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{- end}}
</table>
<p id="totals">{{.R.TotalBits}} weight bits per layer against {{.R.SingleBits}} at the single {{.Width}}
{{.R.Single.FracBits}} ({{.Fewer}} fewer); certified bound {{.Bound}} &lt;= {{.Target}};
{{.R.Candidates}} copies certified.{{if .R.Saved}} Saved: {{.R.Saved}}.{{end}}</p>
<figure>{{.Figure}}<figcaption>Figure 1. Weight bits per layer: the allocation (blue) and the single
{{.Width}} (grey).</figcaption></figure>
<p>The certificate of the chosen copy:</p>
<pre id="certificate">{{.Certificate}}</pre>
{{- else}}
<p id="totals">No copy meets the target.{{if .R.Status}} {{.R.Status}}{{end}}</p>
{{- end}}

` + agree.ProvenanceHTML
