package agree

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
)

// Provenance records how a report was made, for its last section.
type Provenance struct {
	// Command is the command line that made the run.
	Command string
	// Version is the program's version; GoVersion the Go toolchain's.
	Version, GoVersion string
	// Files are the inputs (networks, test set) with their SHA-256.
	Files []File
}

// ProvenanceHTML is the last section of a report page, from a
// Provenance as the template's .P (the command, the versions and the
// input files), and the page's end.
const ProvenanceHTML = `<h2>How this was made</h2>
<pre id="command">{{.P.Command}}</pre>
<table id="provenance">
<tr><td>nnbound</td><td>{{.P.Version}}</td></tr>
<tr><td>Go</td><td>{{.P.GoVersion}}</td></tr>
{{- range .P.Files}}
<tr><td>{{.Name}}</td><td>SHA-256 {{.SHA256}}</td></tr>
{{- end}}
</table>
</body>
</html>
`

// File is an input file and the hex SHA-256 of its contents.
type File struct{ Name, SHA256 string }

// WriteHTML writes the summary as one HTML page (plain HTML with inline
// SVG figures, no script): the table of verdicts and accuracies, a bar
// of the verdicts, a histogram of the boxes bounded per ball, the table
// of disagreements (with the sample and the witness drawn as images when
// the input size is a square), the unknown balls, and the provenance.
// The samples are those of the run (for the images), p its provenance.
func (s *Summary) WriteHTML(w io.Writer, samples []Sample, p Provenance) error {
	t, err := template.New("page").Funcs(template.FuncMap{"pct": pct,
		"percent": func(v float64) string { return fmt.Sprintf("%.1f %%", 100*v) }}).Parse(pageHTML)
	if err != nil {
		panic(err) // the page is a constant
	}
	byIndex := map[int][]float64{}
	for _, x := range samples {
		byIndex[x.Index] = x.X
	}
	return t.Execute(w, page{S: s, P: p, Bar: template.HTML(verdictBar(s)),
		Hist: template.HTML(nodeHistogram(s.Records)), Rows: disagreements(s.Records, byIndex)})
}

// page is the data of pageTemplate.
type page struct {
	S    *Summary
	P    Provenance
	Bar  template.HTML
	Hist template.HTML
	Rows []disagreement
}

// disagreement is a row of the table of disagreements.
type disagreement struct {
	R               Record
	AtF, AtG        int // the classes at the witness (-1 if not recorded)
	Sample, Witness template.HTML
}

// disagreements returns the rows of the disagreement table, with the
// samples' inputs xs by index.
func disagreements(rs []Record, xs map[int][]float64) []disagreement {
	var out []disagreement
	for _, r := range rs {
		if r.Verdict != Disagree {
			continue
		}
		d := disagreement{R: r, AtF: -1, AtG: -1}
		var at struct {
			X      []float64 `json:"x"`
			ClassF *int      `json:"class_f"`
			ClassG *int      `json:"class_g"`
		}
		if json.Unmarshal(r.Detail, &at) == nil && at.ClassF != nil && at.ClassG != nil {
			d.AtF, d.AtG = *at.ClassF, *at.ClassG
		}
		d.Sample, d.Witness = template.HTML(pixels(xs[r.Index])), template.HTML(pixels(r.Witness))
		out = append(out, d)
	}
	return out
}

// verdictBar returns an SVG bar of the shares of the verdicts.
func verdictBar(s *Summary) string {
	const width, height = 600.0, 28.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="verdicts" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" role="img" aria-label="verdicts">`, width, height+22)
	x := 0.0
	for _, part := range []struct {
		name  string
		n     int
		color string
	}{{"agree", s.Agree, "#3b7d3b"}, {"disagree", s.Disagree, "#b03a2e"}, {"unknown", s.Unknown, "#999999"}, {"error", s.Errors, "#333333"}} {
		if part.n == 0 || s.Samples == 0 {
			continue
		}
		wd := width * float64(part.n) / float64(s.Samples)
		fmt.Fprintf(&b, `<rect class="%s" x="%.2f" y="0" width="%.2f" height="%g" fill="%s"><title>%s: %d</title></rect>`, part.name, x, wd, height, part.color, part.name, part.n)
		x += wd
	}
	fmt.Fprintf(&b, `<text x="0" y="%g" font-size="12">agree %d, disagree %d, unknown %d of %d balls</text></svg>`, height+16, s.Agree, s.Disagree, s.Unknown, s.Samples)
	return b.String()
}

// nodeHistogram returns an SVG histogram of the boxes bounded per ball,
// in decades: 1, 2-10, 11-100, ...
func nodeHistogram(rs []Record) string {
	var counts []int
	for _, r := range rs {
		k := 0
		if r.Nodes > 1 {
			k = int(math.Ceil(math.Log10(float64(r.Nodes))))
		}
		for len(counts) <= k {
			counts = append(counts, 0)
		}
		counts[k]++
	}
	most := 1
	for _, c := range counts {
		most = max(most, c)
	}
	const barW, plotH = 70.0, 120.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="nodes" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" role="img" aria-label="boxes per ball">`, barW*float64(max(len(counts), 1))+10, plotH+40)
	for k, c := range counts {
		h := plotH * float64(c) / float64(most)
		label := "1"
		if k > 0 {
			label = fmt.Sprintf("%d-%d", int(math.Pow10(k-1))+1, int(math.Pow10(k)))
		}
		x := 5 + barW*float64(k)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%g" height="%.1f" fill="#4a6fa5"><title>%s boxes: %d balls</title></rect>`, x+5, plotH-h+14, barW-10, h, label, c)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">%d</text>`, x+barW/2, plotH-h+10, c)
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" font-size="11" text-anchor="middle">%s</text>`, x+barW/2, plotH+30, label)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// pixels returns x drawn as a grey-level SVG image when its size is a
// square k*k (values clipped to [0, 1]), else "".
func pixels(x []float64) string {
	k := int(math.Sqrt(float64(len(x))))
	if k*k != len(x) || k == 0 {
		return ""
	}
	const cell = 6
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="image" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">`, k*cell, k*cell)
	for i, v := range x {
		g := int(255 * (1 - min(max(v, 0), 1)))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="rgb(%d,%d,%d)"/>`, (i%k)*cell, (i/k)*cell, cell, cell, g, g, g)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// pct formats n of total as a percentage.
func pct(n, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(total))
}
