package experiment

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
)

// TestPaperResult builds a Result from two hand-made runs and checks its
// fields, the hidden times and its text.
func TestPaperResult(t *testing.T) {
	o := certjob.Default()
	o.Seed = 7
	s := Setup{Exp: Prune, Seed: 7, Opts: o}
	runs := []Run{{Layers: 2, Seconds: 1.5}, {Layers: 2, Seconds: 2}}
	res := s.NewResult(runs, 2, "nnbound paper prune", true)
	if res.Experiment != "prune" || res.Runs != 2 || res.Command != "nnbound paper prune" || len(res.AllRuns) != 2 {
		t.Errorf("result %+v", res)
	}
	for _, r := range res.AllRuns {
		if r.Seconds != 0 {
			t.Errorf("hideTimes left %v s", r.Seconds)
		}
	}
	var buf bytes.Buffer
	if err := res.WriteText(&buf, Prune, "out", true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"nnbound paper prune: ", "2 runs per row, seed 7", "wrote out/prune.md, out/prune.json"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %q in\n%s", want, buf.String())
		}
	}
}

// TestCommandLine: the flags set are listed in order, those skipped are
// not, and defaults are not.
func TestCommandLine(t *testing.T) {
	fs := pflag.NewFlagSet("paper", pflag.ContinueOnError)
	fs.Int("runs", 100, "")
	fs.Int("jobs", 1, "")
	fs.String("qc", "default", "")
	if err := fs.Parse([]string{"--runs", "5", "--jobs", "2"}); err != nil {
		t.Fatal(err)
	}
	if got, want := CommandLine(fs, "paper table1", "jobs"), "nnbound paper table1 --runs 5"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestPaperPair: the copy has the original's shape and its weights on
// the grid of FB = 2, and the pair is Table 2's instance.
func TestPaperPair(t *testing.T) {
	f1, f2, err := PaperPair(3, 2, Width, 2)
	if err != nil {
		t.Fatal(err)
	}
	w := f2.Layers[0].W.At(0, 0)
	if len(f2.Layers) != len(f1.Layers) || w*4 != float64(int(w*4)) {
		t.Errorf("copy: %d layers, weight %v", len(f2.Layers), w)
	}
	s := Setup{Exp: Table2, Seed: 3, Opts: certjob.Default()}
	_, g2, _, err := s.Instance(Task{Layers: 2})
	_, h2, err2 := PaperPair(NetSeed(3, 2, 0), 2, Width, PaperFracBits)
	if err != nil || err2 != nil || !nn.Equal(g2, h2) {
		t.Errorf("Table 2's copy is not PaperPair's: %v, %v", err, err2)
	}
}
