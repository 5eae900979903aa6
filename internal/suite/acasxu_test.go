package suite

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/benchdata"
	"github.com/nnbound/nnbound/report"
)

// acasTestRow returns a certified row with bound b, NeuroDiff's nd and
// the attained differences found (ours) and tsv (the data's).
func acasTestRow(prop string, b, nd, found, tsv float64) *acasRow {
	r := newACASRow(&benchdata.ACASInstance{Prop: prop, Net: "1_1", NeuroDiff: nd, ReluDiffPlus: 2 * nd, FoundTSV: tsv})
	r.take(b, "interval")
	r.Found = report.Number(found)
	r.check()
	return r
}

func TestACASRowCheck(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name       string
		b, f, tsv  float64
		sound      string // prefix
		ratio      float64
		violations bool
	}{
		{"above both", 0.1, 0.01, 0.02, soundOK, 0.05, false},
		{"equal to found", 0.01, 0.01, 0.005, soundOK, 0.005, false},
		{"found above by rounding", 1e-4, 1e-4 + 1e-14, nan, soundOK, 5e-5, false},
		{"found above", 1e-4, 2e-4, nan, "FAIL: found", 5e-5, true},
		{"data's found above", 1e-4, 5e-5, 1.0000001e-4, "FAIL: data's found", 5e-5, true},
		{"no bound", nan, 1e-4, 1e-4, soundNone, nan, false},
	}
	for _, tt := range tests {
		r := acasTestRow("3", tt.b, 2, tt.f, tt.tsv)
		if !strings.HasPrefix(r.Sound, tt.sound) || r.violated() != tt.violations {
			t.Errorf("%s: soundness %q (violated %v), want %q...", tt.name, r.Sound, r.violated(), tt.sound)
		}
		if got := float64(r.Ratio); !(got == tt.ratio || math.IsNaN(got) && math.IsNaN(tt.ratio)) {
			t.Errorf("%s: ratio %v, want %v", tt.name, got, tt.ratio)
		}
		if want := finite(tt.b); (r.Status == "certified") != want {
			t.Errorf("%s: status %q", tt.name, r.Status)
		}
	}
}

func TestACASTake(t *testing.T) {
	r := newACASRow(&benchdata.ACASInstance{Prop: "3", Net: "1_1"})
	r.take(0.5, "interval")
	r.take(math.NaN(), "sdp")
	r.take(0.7, "sdp")
	if r.Method != "interval" || r.Bound != 0.5 {
		t.Errorf("after a worse bound: %s %v", r.Method, r.Bound)
	}
	r.take(0.2, "sdp")
	if r.Method != "sdp" || r.Bound != 0.2 || r.Status != "certified" {
		t.Errorf("after a better bound: %s %v %s", r.Method, r.Bound, r.Status)
	}
}

func TestACASSummary(t *testing.T) {
	nan := math.NaN()
	run := &acasRun{Method: "interval", Bounds: "optimised", Pieces: 1, Timeout: "1m0s", SearchTime: "30s", CPUs: 2, LoadStart: 1.5, LoadEnd: 2}
	run.Rows = []*acasRow{
		acasTestRow("3", 0.1, 2, 0.01, 0.01), // ratio 0.05, bound/found 10
		acasTestRow("3", 0.3, 1, 0.1, 0.1),   // ratio 0.3, bound/found 3
		acasTestRow("3", 3, 2, 0.1, 0.1),     // ratio 1.5: not tighter
		acasTestRow("4", 0.01, 1, 0.02, nan), // violation
		acasTestRow("4", nan, 1, 0.01, 0.01), // no bound
	}
	run.Rows[1].Seconds, run.Rows[1].PeakRSS = 4, 100
	run.summarise([]string{"3", "4"})
	if len(run.Summary) != 3 || run.Violations != 1 {
		t.Fatalf("%d summaries, %d violations; want 3, 1", len(run.Summary), run.Violations)
	}
	p3, p4, all := run.Summary[0], run.Summary[1], run.Summary[2]
	if p3.Instances != 3 || p3.Certified != 3 || p3.MedianRatio != 0.3 || p3.Tighter != 2 || p3.MedianTightness != 10 ||
		p3.MaxSeconds != 4 || p3.Slowest != "3/1_1" || p3.MaxPeakRSS != 100 || p3.Violations != 0 {
		t.Errorf("property 3: %+v", p3)
	}
	if p4.Instances != 2 || p4.Certified != 1 || p4.Tighter != 1 || p4.Violations != 1 {
		t.Errorf("property 4: %+v", p4)
	}
	if all.Instances != 5 || all.Certified != 4 || all.Tighter != 3 {
		t.Errorf("all: %+v", all)
	}
	var buf bytes.Buffer
	if err := run.writeMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"Method interval (bounds optimised, one-shot); time limit 1m0s per bound, 30s per search; 2 CPUs, load average (1 min) 1.5 at the start, 2 at the end.",
		"FAIL: found 0.02 > bound 0.01", "**1 FAIL**", "2/3 (67%)"} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "|    4 | 1_1 |") != 2 || strings.Contains(out, "NaN") {
		t.Errorf("want two rows of property 4:\n%s", out)
	}
}
