package experiment

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// NewResult returns the Result of the runs of s (aggregated by
// Aggregate), n runs per row, made by command (CommandLine). hideTimes
// sets the run times to 0, for golden files.
func (s *Setup) NewResult(runs []Run, n int, command string, hideTimes bool) Result {
	if hideTimes {
		for i := range runs {
			runs[i].Seconds = 0
		}
	}
	o := s.Opts
	return Result{Experiment: s.Exp.String(), Mode: s.Mode(), Runs: n, Seed: o.Seed,
		QC: o.QC.String(), Weights: o.Weights.String(), Rows: Aggregate(s.Exp, runs), AllRuns: runs, Command: command}
}

// WriteText prints res, the result of experiment e, for people: a
// heading, the table (Table) and, when dir is set, the files written
// there (Files). hideTimes prints "-" for the run times.
func (res *Result) WriteText(w io.Writer, e Paper, dir string, hideTimes bool) error {
	fmt.Fprintf(w, "nnbound paper %s: %s\n%d runs per row, seed %d, QC set %s, weights %s\n\n", e, res.Mode, res.Runs, res.Seed, res.QC, res.Weights)
	if err := Table(e, res.Rows, hideTimes).WriteText(w); err != nil {
		return err
	}
	if dir != "" {
		_, err := fmt.Fprintf(w, "\nwrote %s\n", strings.Join(Files(dir, e, res.Figure != ""), ", "))
		return err
	}
	return nil
}

// CommandLine returns "nnbound " + what followed by the flags of fs the
// user set, except those named in skip (which do not change the results):
// the command recorded in a Result.
func CommandLine(fs *pflag.FlagSet, what string, skip ...string) string {
	parts := []string{"nnbound " + what}
	fs.Visit(func(fl *pflag.Flag) {
		if !slices.Contains(skip, fl.Name) {
			parts = append(parts, "--"+fl.Name+" "+fl.Value.String())
		}
	})
	return strings.Join(parts, " ")
}
