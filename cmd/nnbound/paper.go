package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/report"
)

// paperFlags are the flags of nnbound paper.
type paperFlags struct {
	cert    certFlags
	runs    int
	layers  string
	out     string
	json    bool
	jobs    int
	twoNets bool
}

func newPaperCmd() *cobra.Command {
	var f paperFlags
	cmd := &cobra.Command{
		Use:   "paper table1|table2|sweep|prune [--runs N] [--seed S] [--out DIR]",
		Short: "Reproduce the experiments of the paper",
		Long: `Paper reruns the experiments of Li, Drummond and Duncan (L4DC 2021) on random
networks drawn as the authors drew them: one input, one output, hidden layers
of 10 ReLU neurons, standard normal weights and biases, input box [-1, 1].
Run r at depth l uses the network of seed S + 1000 l + r, so every
experiment sees the same networks.

    table1   Table 1: each network compared with itself, x1 and x2
             independent in the box (the "self-compare" mode that the
             paper's numbers match); --two-nets compares two independent
             networks instead. Depths --layers (default 1,2,3,4).
    table2   Table 2: each network against its copy quantised to 2
             fractional bits, fed the quantised input, four-gamma bound.
    sweep    the worst-case figure: bound and observed error against the
             fractional bits FB = 1..5 of the quantised copy, l = 2.
    prune    the pruning example: the 8 hidden neurons of smallest 2-norm
             (after the first hidden layer) zeroed, same input, l = 2.

For each depth (or FB) it prints the paper's columns, averaged over the
certified runs: the gammas, mean/max/min of the tightness

    T = ln(bound(x1, x2)^2) - ln(||f1(x1) - f2(x2)||^2)

over 100 evenly spaced inputs (100 x 100 pairs for Table 1; pairs with zero
error left out), and the run time; and nnbound's own: how many runs were
certified, the mean certified bound, the mean largest error found, and the
median of their ratio. It writes the table as Markdown and JSON (every run
included) and a figure to --out, showing progress on the terminal.

Splitting of the input box has no time budget here unless --timeout is
given, so that the tables do not depend on the machine's speed.`,
		Example: `  nnbound paper table1 --runs 100
  nnbound paper table2 --layers 2 --runs 20 --out results
  nnbound paper sweep --runs 10 --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("paper takes one experiment: table1, table2, sweep or prune")
			}
			if _, ok := experiment.ParsePaper(args[0]); !ok {
				return usagef("unknown experiment %q: want table1, table2, sweep or prune", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			e, _ := experiment.ParsePaper(args[0])
			return runPaper(cmd, e, &f)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&f.runs, "runs", 100, "random networks per row (the paper used 100)")
	fs.StringVar(&f.layers, "layers", "1,2,3,4", "hidden layers of the Table 1 and 2 networks, `l1,l2,...`")
	fs.StringVar(&f.out, "out", "nnbound-paper", "write the tables (Markdown, JSON) and the figure into `DIR` (\"\" for none)")
	fs.BoolVar(&f.json, "json", false, "print the table as JSON")
	fs.IntVar(&f.jobs, "jobs", experiment.DefaultJobs(), "certify this many networks at once")
	fs.BoolVar(&f.twoNets, "two-nets", false, "table1: compare two independent networks instead of each with itself")
	f.cert.register(fs)
	f.cert.noTimeBudget(fs)
	fs.Lookup("seed").Usage = "seed S of the random networks (run r at depth l: S + 1000 l + r) and of the sampling"
	return cmd
}

// plan validates the flags of experiment e and returns its setup, its
// tasks and how many to certify at once. Bad flags are usage errors.
func (f *paperFlags) plan(cmd *cobra.Command, e experiment.Paper) (*experiment.Setup, []experiment.Task, int, error) {
	if f.runs < 1 {
		return nil, nil, 0, usagef("--runs %d: want 1 or more", f.runs)
	}
	if f.jobs < 1 {
		return nil, nil, 0, usagef("--jobs %d: want 1 or more", f.jobs)
	}
	if err := checkMakeDir("--out", f.out); err != nil {
		return nil, nil, 0, err
	}
	layers, err := parseInts("layers", f.layers)
	if err != nil {
		return nil, nil, 0, err
	}
	for _, l := range layers {
		if l < 1 || l > 8 {
			return nil, nil, 0, usagef("--layers: %d hidden layers: want 1 to 8", l)
		}
	}
	if len(layers) == 0 {
		return nil, nil, 0, usagef("--layers is empty")
	}
	if cmd.Flags().Changed("layers") && (e == experiment.Sweep || e == experiment.Prune) {
		return nil, nil, 0, usagef("--layers goes with table1 and table2; %s uses l = 2 as the paper did", e)
	}
	if f.twoNets && e != experiment.Table1 {
		return nil, nil, 0, usagef("--two-nets goes with table1 only")
	}
	opts, err := f.cert.options(cmd.ErrOrStderr())
	if err != nil {
		return nil, nil, 0, err
	}
	jobs := f.cert.jobs(f.jobs)
	s := &experiment.Setup{Exp: e, Seed: opts.Seed, TwoNets: f.twoNets, Opts: opts}
	return s, experiment.Tasks(e, layers, f.runs), jobs, nil
}

// runPaper runs experiment e and prints its table, writing the files under
// --out.
func runPaper(cmd *cobra.Command, e experiment.Paper, f *paperFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	s, tasks, jobs, err := f.plan(cmd, e)
	if err != nil {
		return err
	}
	runs, certs, err := s.CertifyAll(cmd.Context(), tasks, jobs, stderr)
	cancelled := cmd.Context().Err() != nil
	if err != nil && !cancelled {
		return err
	}
	if cancelled { // tabulate the runs finished before the signal; write no files
		done := experiment.Finished(runs, certs)
		fmt.Fprintf(stderr, "nnbound: paper %s cancelled after %d of %d runs; the table below has those runs, no files were written\n", e, len(done), len(runs))
		runs, f.out = done, ""
	}
	res := s.NewResult(runs, f.runs, experiment.CommandLine(cmd.Flags(), "paper "+e.String(), "out", "json", "jobs", "verbose"), hideTimes)
	if f.out != "" {
		if err := s.WriteFiles(cmd.Context(), f.out, tasks, certs, &res, hideTimes); err != nil {
			return err
		}
	}
	if f.json {
		if err := report.WriteJSON(stdout, res); err != nil {
			return err
		}
		return cancelledErr(cancelled)
	}
	if err := res.WriteText(stdout, e, f.out, hideTimes); err != nil {
		return err
	}
	return cancelledErr(cancelled)
}

// cancelledErr returns errCancelled if cancelled, else nil.
func cancelledErr(cancelled bool) error {
	if cancelled {
		return errCancelled
	}
	return nil
}
