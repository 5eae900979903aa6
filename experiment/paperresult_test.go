package experiment

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/internal/certjob"
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
