package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/report"
)

// SDPLIBOptions are the options of the SDPLIB suite (bench sdplib).
type SDPLIBOptions struct {
	Solvers []string
	Timeout time.Duration
	Runs    int
	JSON    bool
	Nnbound string // prebuilt nnbound binary; "" builds one
	Dir     string // SDPLIB folder with optimal.tsv and reference-times.tsv
}

// problemRow is one line of the table.
type problemRow struct {
	Name      string              `json:"name"`
	File      string              `json:"file"`
	M         int                 `json:"m"`
	N         int                 `json:"n"`
	Reference *float64            `json:"reference,omitempty"`
	Range     []float64           `json:"reference_range,omitempty"` // when there is no consensus
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

// DefaultSDPLIBOptions returns the defaults of bench sdplib: every
// solver, ten minutes a run, three runs, the shared SDPLIB folder.
func DefaultSDPLIBOptions() SDPLIBOptions {
	o := SDPLIBOptions{Solvers: []string{"nnbound", "csdp", "sdpa", "dsdp5"}, Timeout: 10 * time.Minute, Runs: 3}
	if root := shared.Root(); root != "" {
		o.Dir = filepath.Join(root, "data", "sdplib")
	}
	return o
}

// SDPLIB times the solvers of o on files (default: every .dat-s of o.Dir),
// checks nnbound's results against the references and prints the table
// (see cmd/bench's documentation).
func SDPLIB(ctx context.Context, stdout, stderr io.Writer, o *SDPLIBOptions, files []string) error {
	if o.Runs < 1 {
		return UsageError{fmt.Errorf("--runs = %d, want >= 1", o.Runs)}
	}
	if o.Timeout <= 0 {
		return UsageError{fmt.Errorf("--timeout = %v, want > 0", o.Timeout)}
	}
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
			return UsageError{fmt.Errorf("no files given and no shared SDPLIB folder found (use --sdplib DIR or NNBOUND_SHARED)")}
		}
		var err error
		if files, err = filepath.Glob(filepath.Join(o.Dir, "*.dat-s")); err != nil || len(files) == 0 {
			return fmt.Errorf("no .dat-s files in %s", o.Dir)
		}
	}
	solvers, cleanup, err := pickSolvers(ctx, stderr, o)
	if err != nil {
		return err
	}
	defer cleanup()
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
		return ErrChecksFailed
	}
	return nil
}

// pickSolvers returns the requested solvers that are available, building
// nnbound when it is requested and no binary was given; cleanup removes
// what the build left.
func pickSolvers(ctx context.Context, stderr io.Writer, o *SDPLIBOptions) (_ []*solver, cleanup func(), err error) {
	known := knownSolvers()
	var out []*solver
	cleanup = func() {}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	for _, name := range o.Solvers {
		s := known[name]
		switch {
		case s == nil:
			return nil, cleanup, UsageError{fmt.Errorf("unknown solver %q (want nnbound, csdp, sdpa or dsdp5)", name)}
		case name == "nnbound":
			bin, rm, err := nnboundBinary(ctx, o.Nnbound)
			if err != nil {
				return nil, cleanup, err
			}
			cleanup = rm
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
		return nil, cleanup, fmt.Errorf("none of the solvers %s is available", strings.Join(o.Solvers, ","))
	}
	return out, cleanup, nil
}

// nnboundBinary returns bin, or builds nnbound into a temporary folder
// that remove deletes.
func nnboundBinary(ctx context.Context, bin string) (_ string, remove func(), err error) {
	if bin != "" {
		bin, err = filepath.Abs(bin)
		return bin, func() {}, err
	}
	dir, err := os.MkdirTemp("", "nnbound-bench-bin-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	bin = filepath.Join(dir, "nnbound")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/nnbound/nnbound/cmd/nnbound")
	if out, err := cmd.CombinedOutput(); err != nil {
		remove()
		return "", nil, fmt.Errorf("building nnbound (run from inside the module, or pass --nnbound): %v\n%s", err, out)
	}
	return bin, remove, nil
}
