package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/sdp/sdpa"
)

// sdplibOptions are the flags of "bench sdplib".
type sdplibOptions struct {
	Solvers []string
	Timeout time.Duration
	Runs    int
	JSON    bool
	Nnbound string // prebuilt nnbound binary; "" builds one
	Dir     string // SDPLIB folder with optimal.tsv and reference-times.tsv
}

func newSDPLIBCmd() *cobra.Command {
	o := sdplibOptions{Solvers: []string{"nnbound", "csdp", "sdpa", "dsdp5"}, Timeout: 10 * time.Minute, Runs: 3}
	if root := shared.Root(); root != "" {
		o.Dir = filepath.Join(root, "data", "sdplib")
	}
	cmd := &cobra.Command{
		Use:   "sdplib [FILE.dat-s ...]",
		Short: "Time nnbound and the installed C solvers on SDPLIB problems",
		Long:  "See the package documentation (go doc ./cmd/bench) for the table and the checks.",
		RunE: func(cmd *cobra.Command, files []string) error {
			return runSDPLIB(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &o, files)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Solvers, "solvers", o.Solvers, "solvers to run (those not installed are skipped)")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "time limit of one solver run")
	f.IntVar(&o.Runs, "runs", o.Runs, "runs per solver and problem, median taken (one if the first takes >= 10 s)")
	f.BoolVar(&o.JSON, "json", false, "print one JSON object instead of the Markdown table")
	f.StringVar(&o.Nnbound, "nnbound", "", "use this nnbound binary instead of building one")
	f.StringVar(&o.Dir, "sdplib", o.Dir, "SDPLIB folder (holds optimal.tsv and reference-times.tsv)")
	return cmd
}

// problemRow is one line of the table.
type problemRow struct {
	Name      string              `json:"name"`
	File      string              `json:"file"`
	M         int                 `json:"m"`
	N         int                 `json:"n"`
	Reference *float64            `json:"reference,omitempty"`
	Tol       float64             `json:"tolerance,omitempty"`
	Check     string              `json:"check"`
	Objective *float64            `json:"objective,omitempty"` // nnbound's
	Error     *float64            `json:"rel_error,omitempty"` // nnbound's
	Ratio     *float64            `json:"ratio_nnbound_csdp,omitempty"`
	CSDPRef   bool                `json:"csdp_time_from_reference,omitempty"`
	Results   map[string]*outcome `json:"results"`

	ratio, csdpTime float64
}

// summary aggregates the ratios and checks.
type summary struct {
	Problems    int      `json:"problems"`
	Passed      int      `json:"passed"`
	Failed      []string `json:"failed"`
	MedianRatio *float64 `json:"median_ratio"`
	WorstRatio  *float64 `json:"worst_ratio"`
	Worst       string   `json:"worst,omitempty"`
	Over5x      []string `json:"over_5x"`
	Solvers     []string `json:"solvers"`
}

func runSDPLIB(ctx context.Context, stdout, stderr io.Writer, o *sdplibOptions, files []string) error {
	if o.Runs < 1 {
		return usageError{fmt.Errorf("--runs = %d, want >= 1", o.Runs)}
	}
	if o.Timeout <= 0 {
		return usageError{fmt.Errorf("--timeout = %v, want > 0", o.Timeout)}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	var refs map[string]*reference
	if o.Dir != "" {
		var err error
		refs, err = readReferences(filepath.Join(o.Dir, "optimal.tsv"), filepath.Join(o.Dir, "reference-times.tsv"))
		if err != nil && len(files) == 0 {
			return err
		}
	}
	if len(files) == 0 {
		if o.Dir == "" {
			return usageError{fmt.Errorf("no files given and no shared SDPLIB folder found (use --sdplib DIR or NNBOUND_SHARED)")}
		}
		var err error
		if files, err = filepath.Glob(filepath.Join(o.Dir, "*.dat-s")); err != nil || len(files) == 0 {
			return fmt.Errorf("no .dat-s files in %s", o.Dir)
		}
	}
	solvers, err := pickSolvers(ctx, stderr, o)
	if err != nil {
		return err
	}
	rows := make([]*problemRow, 0, len(files))
	for n, file := range files {
		row, err := benchProblem(ctx, file, refs, solvers, o)
		if err != nil {
			return err
		}
		rows = append(rows, row)
		fmt.Fprintf(stderr, "[%d/%d] %s\n", n+1, len(files), progressLine(row, solvers))
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	sum := summarise(rows, solvers)
	if o.JSON {
		err = report.WriteJSON(stdout, struct {
			Problems []*problemRow `json:"problems"`
			Summary  summary       `json:"summary"`
		}{rows, sum})
	} else {
		err = writeMarkdown(stdout, rows, solvers, sum)
	}
	if err != nil {
		return err
	}
	if len(sum.Failed) > 0 {
		return errChecksFailed
	}
	return nil
}

// pickSolvers returns the requested solvers that are available, building
// nnbound when it is requested and no binary was given.
func pickSolvers(ctx context.Context, stderr io.Writer, o *sdplibOptions) ([]*solver, error) {
	known := knownSolvers()
	var out []*solver
	for _, name := range o.Solvers {
		s := known[name]
		switch {
		case s == nil:
			return nil, usageError{fmt.Errorf("unknown solver %q (want nnbound, csdp, sdpa or dsdp5)", name)}
		case name == "nnbound":
			bin, err := nnboundBinary(ctx, o.Nnbound)
			if err != nil {
				return nil, err
			}
			s.Bin = bin
		default:
			bin, err := exec.LookPath(s.Bin)
			if err != nil {
				fmt.Fprintf(stderr, "bench: %s is not installed, skipping it\n", name)
				continue
			}
			s.Bin = bin
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("none of the solvers %s is available", strings.Join(o.Solvers, ","))
	}
	return out, nil
}

// nnboundBinary returns bin, or builds nnbound into a temporary folder.
func nnboundBinary(ctx context.Context, bin string) (string, error) {
	if bin != "" {
		return filepath.Abs(bin)
	}
	dir, err := os.MkdirTemp("", "nnbound-bench-bin-")
	if err != nil {
		return "", err
	}
	bin = filepath.Join(dir, "nnbound")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/nnbound/nnbound/cmd/nnbound")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building nnbound (run from inside the module, or pass --nnbound): %v\n%s", err, out)
	}
	return bin, nil
}

// benchProblem runs every solver on file and checks nnbound's result.
func benchProblem(ctx context.Context, file string, refs map[string]*reference, solvers []*solver, o *sdplibOptions) (*problemRow, error) {
	p, err := sdpa.Read(file)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(file), ".dat-s")
	row := &problemRow{Name: name, File: file, M: p.NumVars(), ratio: math.NaN(), csdpTime: math.NaN()}
	for _, b := range p.Blocks {
		row.N += b.Size
	}
	row.Results = runSolvers(ctx, solvers, file, o.Runs, o.Timeout)
	ref := refs[name]
	if ref != nil {
		row.Tol = ref.Tol
		if finite(ref.Value) {
			row.Reference = num(ref.Value)
		}
	}
	row.Check = "—"
	if ours := row.Results["nnbound"]; ours != nil {
		row.Check = check(ref, ours)
		if ref != nil && finite(ref.Value) {
			row.Objective = num(ours.objective())
			row.Error = num(relError(ours, ref.Value))
		}
		row.csdpTime = math.NaN()
		if c := row.Results["csdp"]; c != nil && c.Err == "" {
			row.csdpTime = c.Seconds
		} else if ref != nil && finite(ref.CSDPTime) {
			row.csdpTime, row.CSDPRef = ref.CSDPTime, true
		}
		if ours.Err == "" && row.csdpTime > 0 {
			row.ratio = ours.Seconds / row.csdpTime
			row.Ratio = num(row.ratio)
		}
	}
	return row, nil
}

// relError is max(|pobj - v|, |dobj - v|) / max(1, |v|); +Inf when an
// objective is missing.
func relError(o *outcome, v float64) float64 {
	p, d := float64(o.PrimalObjective), float64(o.DualObjective)
	if !finite(p) || !finite(d) {
		return math.Inf(1)
	}
	return max(math.Abs(p-v), math.Abs(d-v)) / max(1, math.Abs(v))
}

// check applies the rules of the package doc to nnbound's outcome.
func check(ref *reference, o *outcome) string {
	if ref == nil {
		return "—"
	}
	if o.Err != "" {
		return "FAIL"
	}
	if ref.Status != "opt" {
		if o.Status == ref.Status {
			return "ok"
		}
		return "FAIL"
	}
	e := relError(o, ref.Value)
	solved := o.Status == "optimal" || o.Status == "near_optimal"
	switch {
	case o.Status == "optimal" && e <= strictTol:
		return "ok"
	case ref.Uncertain && solved && e <= ref.Tol:
		return "ok?"
	case ref.IllPosed && solved && e <= ref.Tol:
		return "ok~"
	}
	return "FAIL"
}

// summarise computes the median and worst ratio and the failed checks.
func summarise(rows []*problemRow, solvers []*solver) summary {
	s := summary{Problems: len(rows), Failed: []string{}, Over5x: []string{}}
	for _, sv := range solvers {
		s.Solvers = append(s.Solvers, sv.Name)
	}
	var ratios []float64
	worst := math.Inf(-1)
	for _, r := range rows {
		switch r.Check {
		case "ok", "ok~", "ok?":
			s.Passed++
		case "FAIL":
			s.Failed = append(s.Failed, r.Name)
		}
		if !finite(r.ratio) {
			continue
		}
		ratios = append(ratios, r.ratio)
		if r.ratio > worst {
			worst, s.Worst = r.ratio, r.Name
		}
		if r.ratio > 5 {
			s.Over5x = append(s.Over5x, r.Name)
		}
	}
	if len(ratios) > 0 {
		s.MedianRatio = num(median(ratios))
		s.WorstRatio = num(worst)
	}
	slices.Sort(s.Over5x)
	return s
}

// num returns a pointer to v, or nil when v is not finite (JSON null).
func num(v float64) *float64 {
	if !finite(v) {
		return nil
	}
	return &v
}
