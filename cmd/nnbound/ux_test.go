package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The golden files of demo, sweep, allocate, export and paper live in testdata/ux.
// The solver's last digits, and run times, must not make them fail, so
// the output is normalised before the comparison: every number with a
// fraction or an exponent becomes N (integers such as bit widths, sizes
// and counts stay), runs of spaces become one, and temporary paths become
// OUT. Alignment is tested by package report; these files pin the words,
// the fields and their order. Refresh them with
//
//	go test ./cmd/nnbound -run 'TestDemoGolden|TestSweepGolden|TestAllocateGolden|TestExportGolden|TestPaperGolden' -update

var (
	// Numbers with a fraction or an exponent, and integers of 3 digits or
	// more (a value printed to 4 significant digits, such as 8596).
	reFloat  = regexp.MustCompile(`-?\b\d+\.\d+(?:e[-+]?\d+)?\b|-?\b\d+e[-+]?\d+\b|-?\b\d{3,}\b`)
	reSpaces = regexp.MustCompile(`([^ \n]) {2,}`)
	reDashes = regexp.MustCompile(`-{2,}`)
	// Counts that follow the solver and the QC set, not the command.
	reCounts = regexp.MustCompile(`\b\d+( iterations| variables| solve\(s\)| pieces)|(order )\d+|("(?:size|variables|solves|iterations|pieces)": )\d+`)
	// Integers that are values, not counts: a gamma printed as 0, a
	// JSON number that is not one of the structural integers.
	reGammaInt = regexp.MustCompile(`\b(gamma(?:_x1|_x2|_x)? )-?\d+\b`)
	reJSONInt  = regexp.MustCompile(`(?m)^(\s*"([a-z_0-9]+)": )(-?\d+)(,?)$`)
	// reSolved hides whether the solver reached full or 1000x tolerance:
	// the certificate is the same either way, and it varies with the solver.
	reSolved = regexp.MustCompile(`\b(?:near_)?optimal\b`)
	// What varies with how the solver fared, not with the command: whether
	// the box was split, whether bound propagation or the SDP gave the
	// bound (and the lines that say so), and a gamma column printed as an
	// exact 0 instead of a tiny number. TestWriteCertificate pins the
	// wording of those lines.
	reSplit    = regexp.MustCompile(`, input split into N pieces`)
	reSource   = regexp.MustCompile(`("source": )"[a-z]+"`)
	reSolverLn = regexp.MustCompile(`(?m)^(?:bound from|note) .*\n`)
	reZeroCell = regexp.MustCompile(`(^|[ |])0( |$)`)
	reTableRow = regexp.MustCompile(`^[ |]*(?:(?:N|-|\d+|\d+/\d+)[ |]+)+(?:N|-|\d+|\d+/\d+)?[ |]*$`)
	structural = map[string]bool{"frac_bits": true, "layers": true, "runs": true, "run": true,
		"certified": true, "net_seed": true, "seed": true, "seconds": true, "output": true}
)

// normalise makes output comparable across machines and solver versions
// (see above); indentation at the start of a line is kept.
func normalise(s, tmp string) string {
	s = strings.ReplaceAll(s, tmp, "OUT")
	s = reFloat.ReplaceAllString(s, "N")
	s = reCounts.ReplaceAllString(s, "${2}${3}N${1}")
	s = reGammaInt.ReplaceAllString(s, "${1}N")
	s = reJSONInt.ReplaceAllStringFunc(s, func(m string) string {
		g := reJSONInt.FindStringSubmatch(m)
		if structural[g[2]] {
			return m
		}
		return g[1] + "N" + g[4]
	})
	s = reSolved.ReplaceAllString(s, "solved")
	s = reDashes.ReplaceAllString(s, "--")
	s = reSpaces.ReplaceAllString(s, "$1 ")
	s = reSplit.ReplaceAllString(s, "")
	s = reSource.ReplaceAllString(s, `${1}"S"`)
	s = reSolverLn.ReplaceAllString(s, "")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if reTableRow.MatchString(l) {
			for range 2 { // "0 0": the cells share a space
				l = reZeroCell.ReplaceAllString(l, "${1}N${2}")
			}
			lines[i] = l
		}
	}
	return strings.Join(lines, "\n")
}

// uxRun runs nnbound with args (TMP in them replaced by a temporary
// directory) with run times hidden, and returns the normalised stdout,
// the exit code and the temporary directory.
func uxRun(t *testing.T, args ...string) (string, int, string) {
	t.Helper()
	hideTimes = true
	t.Cleanup(func() { hideTimes = false })
	tmp := t.TempDir()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "TMP", tmp)
	}
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	if code == exitUsage || (code == exitFail && stdout.Len() == 0) {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	return normalise(stdout.String(), tmp), code, tmp
}

// checkUX compares got with the golden file testdata/ux/name.
func checkUX(t *testing.T, name, got string) {
	t.Helper()
	checkGolden(t, filepath.Join("testdata", "ux", name), []byte(got))
}

// checkJSON checks that s is one JSON object with the keys given.
func checkJSON(t *testing.T, s string, keys ...string) {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(strings.ReplaceAll(s, "N", "0")))
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON has no %q", k)
		}
	}
}

// Faster settings for the commands that certify, without a time budget so
// that the result does not depend on the machine's load (demo keeps its
// defaults, which have none: it must show what a first-time user sees).
var quick = []string{"--max-pieces", "8", "--timeout", "0"}

func TestDemoGolden(t *testing.T) {
	got, code, tmp := uxRun(t, "demo", "--plot", "TMP/demo.png")
	checkUX(t, "demo.txt", got)
	_, err := os.Stat(filepath.Join(tmp, "demo.png"))
	if (code == exitOK) != (err == nil) {
		t.Errorf("exit code %d but figure: %v", code, err)
	}
	got, _, _ = uxRun(t, "demo", "--json", "--plot", "")
	checkJSON(t, got, "certified", "status", "bound", "observed_error", "gamma", "gamma_x1", "gamma_x2", "gamma_x", "sdp", "input")
	checkUX(t, "demo.json", got)
}

func TestSweepGolden(t *testing.T) {
	args := append([]string{"sweep", sin3x, "--frac-bits", "4,8", "--target-error", "0.5", "--jobs", "1", "--plot", "TMP/s.svg"}, quick...)
	got, _, tmp := uxRun(t, args...)
	checkUX(t, "sweep.txt", got)
	if strings.Contains(got, "figure:") {
		if _, err := os.Stat(filepath.Join(tmp, "s.svg")); err != nil {
			t.Error(err)
		}
	}
	args = append([]string{"sweep", sin3x, "--frac-bits", "6", "--neurons", "0,4", "--json", "--plot", ""}, quick...)
	got, _, _ = uxRun(t, args...)
	checkJSON(t, got, "model", "input", "qc", "target_error", "rows")
	checkUX(t, "sweep.json", got)
}

func TestAllocateGolden(t *testing.T) {
	args := append([]string{"allocate", sin3x, "--frac-bits", "7:8", "--target-error", "0.05", "--starts", "1", "--jobs", "1", "--save", "TMP/a.json"}, quick...)
	got, code, _ := uxRun(t, args...)
	if code != exitOK {
		t.Fatalf("exit code %d:\n%s", code, got)
	}
	checkUX(t, "allocate.txt", got)
}

func TestExportGolden(t *testing.T) {
	for _, c := range []struct{ name, file string }{{"export-sdpa.txt", "p.dat-s"}, {"export-cbf.txt", "p.cbf"}} {
		got, code, tmp := uxRun(t, "export", sin3x, "--frac-bits", "3", "-o", "TMP/"+c.file)
		if code != exitOK {
			t.Fatalf("exit code %d", code)
		}
		data, err := os.ReadFile(filepath.Join(tmp, c.file))
		if err != nil {
			t.Fatal(err)
		}
		// The summary, then the header comment of the file.
		var head []string
		for _, l := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(l, "\"") && !strings.HasPrefix(l, "#") {
				break
			}
			head = append(head, l)
		}
		checkUX(t, c.name, got+"---\n"+normalise(strings.Join(head, "\n"), tmp)+"\n")
	}
	got, _, _ := uxRun(t, "export", sin3x, "--frac-bits", "3", "-o", "TMP/p.cbf", "--json")
	checkJSON(t, got, "file", "format", "networks", "variables", "lmi_order", "input", "gammas", "where")
	checkUX(t, "export.json", got)
	// With x2 = x1 the SDP has no gamma_x2 or gamma_x: the names come from
	// the SDP builder.
	got, code, _ := uxRun(t, "export", sin3x, "--frac-bits", "3", "--pairing", "same", "-o", "TMP/p.dat-s")
	if code != exitOK || !strings.Contains(got, "gammas: gamma = y[1], gamma_x1 = y[2]\n") {
		t.Errorf("export --pairing same: exit code %d, output\n%s", code, got)
	}
}

func TestPaperGolden(t *testing.T) {
	args := append([]string{"paper", "prune", "--runs", "2", "--jobs", "1", "--out", "TMP/p"}, quick...)
	got, _, tmp := uxRun(t, args...)
	checkUX(t, "paper-prune.txt", got)
	md, err := os.ReadFile(filepath.Join(tmp, "p", "prune.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkUX(t, "paper-prune.md", normalise(string(md), tmp))
	if _, err := os.Stat(filepath.Join(tmp, "p", "prune.json")); err != nil {
		t.Error(err)
	}
	args = append([]string{"paper", "table2", "--layers", "1", "--runs", "1", "--json", "--out", ""}, quick...)
	got, _, _ = uxRun(t, args...)
	checkJSON(t, got, "experiment", "mode", "runs", "seed", "qc", "weights", "rows", "all_runs", "command")
	checkUX(t, "paper-table2.json", got)
}

// TestCompareGolden pins what compare says it bounds: the inf-norm with
// each output's bound, and one output alone (--output K).
func TestCompareGolden(t *testing.T) {
	base := append([]string{"compare", tanh2, tanh2, "--pairing", "quantised", "--input-frac-bits", "3"}, quick...)
	got, _, _ := uxRun(t, append(base, "--norm", "inf")...)
	checkUX(t, "compare-inf.txt", got)
	got, _, _ = uxRun(t, append(base, "--output", "1", "--json")...)
	checkJSON(t, got, "certified", "bound", "of", "output", "method", "source", "gamma")
	checkUX(t, "compare-output.json", got)
}

// TestCertifyCompressGolden pins quantise --certify: the compression
// report then the certificate, and in JSON the certificate with the
// report as its "compression".
func TestCertifyCompressGolden(t *testing.T) {
	args := func(extra ...string) []string { // a new slice each time: uxRun rewrites TMP in place
		return append(append([]string{"quantise", sin3x, "--frac-bits", "6", "--save", "TMP/q.onnx", "--certify",
			"--pairing", "quantised", "--input-frac-bits", "6"}, quick...), extra...)
	}
	got, _, _ := uxRun(t, args()...)
	checkUX(t, "quantise-certify.txt", got)
	got, _, _ = uxRun(t, args("--json")...)
	checkJSON(t, got, "certified", "bound", "of", "source", "compression")
	checkUX(t, "quantise-certify.json", got)
}
