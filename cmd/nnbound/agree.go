package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/agree"
	"github.com/nnbound/nnbound/agree/top1"
	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/internal/progress"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/vnncomp"
)

// agreeFlags are the flags of nnbound agree.
type agreeFlags struct {
	model    modelFlags
	data     string
	labels   string
	radius   string
	domain   string
	out      string
	shard    string
	workers  int
	timeout  time.Duration
	maxNodes int
	json     bool
	verbose  bool
	report   string
}

func newAgreeCmd(getenv func(string) string) *cobra.Command {
	var f agreeFlags
	cmd := &cobra.Command{
		Use:   "agree F G --data TEST --radius R",
		Short: "Certify on a test set that G picks F's class on a ball about every sample",
		Long: `For every sample x of a test set, decide whether the networks F and G
pick the same class at every input of the L-inf ball of radius R about
x, clipped to the input domain (--domain, 0:1 unless told; a tie in
either network counts as a disagreement), as "nnbound verify --property
top1" does; and print how many balls are certified to agree, how many
hold a disagreement (an input where the classes differ, evaluated again
with directed rounding), how many are unknown (the per-ball limits,
--timeout and --max-nodes, came first), and the clean accuracy of both
networks on the samples themselves.

--data reads .json ({"inputs": [[...], ...], "labels": [...]}), .csv
(one sample a row; a header row's "label" column holds the labels) or
.npy (shape (N, ...), C order; labels from --labels, .npy or one integer
a line). Values are taken as they are: scale them to the networks' input
range first (a value farther than R outside --domain is an error).
--radius takes a number or a fraction such as 2/255.

Samples are decided --workers at a time (every CPU unless told), and
each verdict is one JSON line of the log in --out, in sample order; a
rerun skips the samples already logged there, so an interrupted run
resumes. --shard K/N decides only the samples i with i mod N == K (when
absent, from Slurm or Kubernetes as for vnncomp, else every sample); a
run with --shard 0/1 after the shards sums up their logs.

--report DIR writes DIR/index.html: the table of results, a figure of
the verdicts and one of the boxes bounded per ball, the disagreements
(sample and witness drawn as images when the input size is a square),
and the command, versions and SHA-256 of the input files.

Exit status: 0 every ball decided and agreeing, 1 a disagreement, an
unknown ball or an error, 2 usage error; interrupted (SIGINT, SIGTERM),
the run stops after logging the finished samples, and --report writes
the page of those.`,
		Example: `  nnbound agree testdata/graphs/digits_cnn.onnx testdata/graphs/digits_cnn_int8_torch.onnx --data testdata/graphs/digits_test.json --radius 2/255 --shard 0/45
  nnbound agree f.onnx g.onnx --data test.npy --labels labels.txt --radius 0.01 --out results --report page
  nnbound agree f.onnx g.onnx --data test.csv --radius 1/255 --shard 0/4`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAgree(cmd, args, &f, getenv)
		},
	}
	fs := cmd.Flags()
	f.model.register(fs)
	f.model.chainOnly = "agree decides top-1 agreement for chains of layers so far: verify F G --epsilon E decides graph pairs on a box"
	fs.StringVar(&f.data, "data", "", "the test set `FILE` (.json, .csv or .npy)")
	fs.StringVar(&f.labels, "labels", "", "labels of a .npy test set, `FILE` (.npy or one integer a line)")
	fs.StringVar(&f.radius, "radius", "", "L-inf radius `R` of the balls (a number, or a fraction such as 2/255)")
	fs.StringVar(&f.domain, "domain", "0:1", "input domain `LO:HI` the balls are clipped to")
	fs.StringVar(&f.out, "out", "agree-results", "write the log to `DIR` (created if missing; read first, to resume)")
	fs.StringVar(&f.shard, "shard", "", "decide shard `K/N`: the samples i with i mod N == K (default: from Slurm or Kubernetes, else 0/1)")
	fs.IntVar(&f.workers, "workers", 0, "samples decided at once (0: one per CPU)")
	f.timeout = top1.DefaultTimeout
	duration.Var(fs, &f.timeout, "timeout", "stop a ball with unknown after this long (0: no limit)")
	fs.IntVar(&f.maxNodes, "max-nodes", top1.DefaultMaxNodes, "stop a ball with unknown after bounding this many boxes (0: no limit)")
	fs.BoolVar(&f.json, "json", false, "print the summary as one JSON object")
	fs.StringVar(&f.report, "report", "", "also write the results as a web page, `DIR`/index.html (HTML and SVG, no script)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print each sample's verdict on stderr as it is logged")
	return cmd
}

// question checks the flags that do not depend on the models and returns
// the question.
func (f *agreeFlags) question() (top1.Question, error) {
	var q top1.Question
	if f.data == "" {
		return q, usagef("--data is required")
	}
	if f.radius == "" {
		return q, usagef("--radius is required")
	}
	r, err := parseRadius(f.radius)
	if err != nil {
		return q, err
	}
	a, b, ok := strings.Cut(f.domain, ":")
	if !ok {
		return q, usagef("--domain %q: want LO:HI, for example --domain 0:1", f.domain)
	}
	lo, err := parseBound("domain", a)
	if err != nil {
		return q, err
	}
	hi, err := parseBound("domain", b)
	if err != nil {
		return q, err
	}
	if lo > hi {
		return q, usagef("--domain %s is inverted", f.domain)
	}
	if hi > lo && r >= hi-lo {
		return q, usagef("--radius %s is at least the width of --domain %s: every ball would be the whole domain (a radius in pixel steps is a fraction such as 2/255; verify --property top1 --box %s asks about the whole domain once)", f.radius, f.domain, f.domain)
	}
	if err := checkLimits(f.timeout, count{"--max-nodes", f.maxNodes}, count{"--workers", f.workers}); err != nil {
		return q, err
	}
	if err := checkMakeDir("--report", f.report); err != nil {
		return q, err
	}
	if err := checkMakeDir("--out", f.out); err != nil {
		return q, err
	}
	return top1.Question{Radius: r, Lo: lo, Hi: hi}, nil
}

// parseRadius parses a non-negative finite number or a fraction A/B.
func parseRadius(s string) (float64, error) {
	num, den, frac := strings.Cut(strings.TrimSpace(s), "/")
	r, err := strconv.ParseFloat(num, 64)
	if err == nil && frac {
		var d float64
		if d, err = strconv.ParseFloat(den, 64); err == nil {
			if !(d > 0) {
				err = errors.New("zero denominator")
			}
			r /= d
		}
	}
	if err != nil || !(r >= 0) || r > 1e300 {
		return 0, usagef("--radius %q: want a number >= 0 or a fraction such as 2/255", s)
	}
	return r, nil
}

// runAgree loads the models and the test set, runs and prints.
func runAgree(cmd *cobra.Command, args []string, f *agreeFlags, getenv func(string) string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	q, err := f.question()
	if err != nil {
		return err
	}
	shard, from, err := vnncomp.PickShard(f.shard, getenv)
	if err != nil {
		return usageError{err}
	}
	if from != "" {
		fmt.Fprintf(stderr, "agree: shard %s (from %s)\n", shard, from)
	}
	nets, err := f.model.loadPair(args)
	if err != nil {
		return err
	}
	samples, err := agree.Read(f.data, f.labels)
	if err != nil {
		return err
	}
	if n := len(samples[0].X); n != nets[0].InputSize() {
		return fmt.Errorf("agree: %s has samples of %d values, the networks take %d", f.data, n, nets[0].InputSize())
	}
	files, err := agreeInputs(args, f)
	if err != nil {
		return err
	}
	text := fmt.Sprintf("%s vs %s %s", filepath.Base(args[0]), filepath.Base(args[1]), q.On(f.data, files))
	bar := progress.New(stderr, "agree", (len(samples)-shard.K+shard.N-1)/shard.N)
	var lines io.Writer = barWriter{bar}
	if f.verbose {
		lines = stderr
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	sum, err := top1.Run(ctx, nets[0], nets[1], q, f.maxNodes, samples,
		agree.Options{Dir: f.out, Question: text, Shard: shard, Workers: f.workers, Timeout: f.timeout, Report: lines})
	bar.Done()
	if sum != nil {
		write := sum.WriteTable
		if f.json {
			write = func(w io.Writer) error { return report.WriteJSON(w, sum) }
		}
		if werr := write(stdout); werr != nil && err == nil {
			err = werr
		}
	}
	// Interrupted, the page shows the balls finished, as the log keeps them.
	if sum != nil && f.report != "" && (err == nil || errors.Is(err, context.Canceled)) {
		if werr := writeAgreeReport(cmd, args, f, sum, samples, files); werr != nil {
			err = werr
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("agree: interrupted; finished samples are logged in %s, run the same command again to resume: %w", f.out, context.Canceled)
	case err != nil:
		return err
	case sum.Agree != sum.Samples:
		return errNotCertified
	}
	return nil
}

// agreeInputs returns the input files of agree (the networks, the test
// set and its labels) with their SHA-256.
func agreeInputs(args []string, f *agreeFlags) ([]agree.File, error) {
	files, err := agree.Digests(append(slices.Clone(args), f.data, f.labels))
	if err != nil {
		return nil, fmt.Errorf("agree: %w", err)
	}
	return files, nil
}

// provenance returns the provenance of a report of cmd run on args with
// the input files files: the command line with every flag set, and the
// versions.
func provenance(cmd *cobra.Command, args []string, files []agree.File) agree.Provenance {
	line := append([]string{"nnbound", cmd.Name()}, args...)
	cmd.Flags().Visit(func(fl *pflag.Flag) { line = append(line, "--"+fl.Name+"="+fl.Value.String()) })
	return agree.NewProvenance(line, files)
}

// writeAgreeReport writes the page of --report.
func writeAgreeReport(cmd *cobra.Command, args []string, f *agreeFlags, sum *agree.Summary, samples []agree.Sample, files []agree.File) error {
	p := provenance(cmd, args, files)
	return writePage(cmd, f.report, func(w io.Writer) error { return sum.WriteHTML(w, samples, p) })
}

// writePage writes the web page of cmd's --report, dir/index.html,
// atomically (write makes it), creating dir if missing.
func writePage(cmd *cobra.Command, dir string, write func(io.Writer) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: --report: %w", cmd.Name(), err)
	}
	return atomicfile.Write(filepath.Join(dir, "index.html"), write)
}

// barWriter advances a progress bar by one for every line written to it.
type barWriter struct{ bar *progress.Bar }

// Write advances the bar by the number of lines in p.
func (w barWriter) Write(p []byte) (int, error) {
	w.bar.Add(strings.Count(string(p), "\n"))
	return len(p), nil
}
