package agree

// pageHTML is the template of the report (Summary.WriteHTML).
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Top-1 agreement: {{.S.Question}}</title>
<style>
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
pre { background: #f4f4f4; padding: 0.7em; overflow-x: auto; }
figure { margin: 1em 0; }
</style>
</head>
<body>
<h1>Top-1 agreement</h1>
<p id="question">{{.S.Question}}</p>
<p>A ball <em>agrees</em> when both networks are proved to pick the same class at every input of it
(a tie counts as a disagreement); it <em>disagrees</em> when an input of it was found where they pick
different classes, evaluated again with directed rounding; it is <em>unknown</em> when the per-ball
limits came first.</p>

<h2>Results</h2>
<table id="summary">
<tr><th>verdict</th><th>balls</th><th>share</th></tr>
<tr><td>agree</td><td>{{.S.Agree}}</td><td>{{pct .S.Agree .S.Samples}}</td></tr>
<tr><td>disagree</td><td>{{.S.Disagree}}</td><td>{{pct .S.Disagree .S.Samples}}</td></tr>
<tr><td>unknown</td><td>{{.S.Unknown}}</td><td>{{pct .S.Unknown .S.Samples}}</td></tr>
{{- if .S.Errors}}
<tr><td>error</td><td>{{.S.Errors}}</td><td>{{pct .S.Errors .S.Samples}}</td></tr>
{{- end}}
<tr><td>total</td><td>{{.S.Samples}}</td><td>decided: {{percent .S.Decided}}</td></tr>
</table>
<table id="accuracy">
<tr><th>network</th><th>clean accuracy</th><th>labelled samples</th></tr>
{{- if .S.Labelled}}
<tr><td>f</td><td>{{percent .S.AccuracyF}}</td><td>{{.S.Labelled}}</td></tr>
<tr><td>g</td><td>{{percent .S.AccuracyG}}</td><td>{{.S.Labelled}}</td></tr>
{{- else}}
<tr><td colspan="3">no labelled sample counted</td></tr>
{{- end}}
</table>
<p id="shard">Shard {{.S.Shard}}; {{.S.Resumed}} balls from earlier runs.
{{- if .S.Interrupted}} The run was interrupted: {{.S.Interrupted}} balls were not decided and are not
counted (the same command again decides them).{{end}} (The times, which depend
on the machine, are in the log and the command's summary, not on this page, so that the same run
makes the same page.)</p>

<h2>Figures</h2>
<figure>{{.Bar}}<figcaption>Figure 1. Verdicts of the balls.</figcaption></figure>
<figure>{{.Hist}}<figcaption>Figure 2. Boxes bounded per ball (the branch and bound's tree size).</figcaption></figure>

<h2>Disagreements</h2>
{{- if .Rows}}
<table id="disagreements">
<tr><th>sample</th><th>label</th><th>f, g at the sample</th><th>f, g at the witness</th><th>sample</th><th>witness</th></tr>
{{- range .Rows}}
<tr><td>{{.R.Index}}</td><td>{{if ge .R.Label 0}}{{.R.Label}}{{else}}-{{end}}</td><td>{{.R.ClassF}}, {{.R.ClassG}}</td><td>{{if ge .AtF 0}}{{.AtF}}, {{.AtG}}{{else}}-{{end}}</td><td>{{.Sample}}</td><td>{{.Witness}}</td></tr>
{{- end}}
</table>
<p>The witnesses are in the log, in full precision.</p>
{{- else}}
<p id="no-disagreements">None found.</p>
{{- end}}

<h2>Unknown balls</h2>
<p id="unknown">{{range $i, $r := .S.Records}}{{if eq $r.Verdict "unknown"}}{{$r.Index}} ({{$r.Reason}}) {{end}}{{end}}</p>

` + ProvenanceHTML
