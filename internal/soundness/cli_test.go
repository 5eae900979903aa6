package soundness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nnbound/nnbound/nn/jsonnet"
)

// The command line on extreme and malformed input: it must not panic or
// hang, must exit 0, 1 or 2, must leave no temporary or partial file, and
// a certificate it prints must not be contradicted by its own observed
// error.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// nnbound builds the command once into a temporary directory.
func nnbound(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nnbound-soundness")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "nnbound")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/nnbound/nnbound/cmd/nnbound").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Skipf("cannot build nnbound: %v", buildErr)
	}
	return binPath
}

// cliResult is one run of the command.
type cliResult struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nnbound(t), args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("nnbound %v: no answer in 90 s", args)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliResult{code, out.String(), errb.String()}
}

// cliCert is the part of compare --json the checks read.
type cliCert struct {
	Certified     bool      `json:"certified"`
	Bound         *float64  `json:"bound"`
	ObservedError *float64  `json:"observed_error"`
	WorstX1       []float64 `json:"worst_x1"`
	WorstX2       []float64 `json:"worst_x2"`
	Input         struct {
		Lo, Hi []float64
	} `json:"input"`
}

// cliCase is one invocation; files are written to the run's directory.
type cliCase struct {
	name  string
	files map[string]string
	args  []string
	// plot is the figure file the run may write (must not exist after a
	// failure).
	plot string
}

const (
	netA = `{"layers":[{"weight":[[1],[-1]],"bias":[0,0.5],"activation":"relu"},{"weight":[[1,1]],"bias":[0],"activation":"linear"}]}`
	netB = `{"layers":[{"weight":[[1.5],[-0.5]],"bias":[0.1,0.5],"activation":"tanh"},{"weight":[[1,-1]],"bias":[0.2],"activation":"linear"}]}`
	// Weights that overflow float64 evaluation and bound propagation.
	netBig   = `{"layers":[{"weight":[[1e300],[-1e300]],"bias":[0,0.5],"activation":"relu"},{"weight":[[1e300,1e300]],"bias":[0],"activation":"linear"}]}`
	netTiny  = `{"layers":[{"weight":[[1e-300],[-1e-300]],"bias":[0,1e-300],"activation":"relu"},{"weight":[[1e-300,1e-300]],"bias":[0],"activation":"linear"}]}`
	netWide2 = `{"layers":[{"weight":[[1,2],[-1,0.5],[0.3,-2]],"bias":[0,0.5,-0.1],"activation":"elu","alpha":-0.5},{"weight":[[1,1,1],[2,-1,0]],"bias":[0,1],"activation":"linear"}]}`
	netHT2   = `{"layers":[{"weight":[[1,-2],[0.5,0.5]],"bias":[0.2,-0.1],"activation":"hardtanh","lo":0.5,"hi":0.5},{"weight":[[1,1],[1,-1]],"bias":[0,0],"activation":"linear"}]}`
)

var cliCases = []cliCase{
	{name: "ordinary", args: []string{"compare", "a.json", "b.json"}},
	{name: "same input", args: []string{"compare", "a.json", "b.json", "--pairing", "same"}},
	{name: "quantised fb 0", args: []string{"compare", "a.json", "b.json", "--pairing", "quantised", "--input-frac-bits", "0"}},
	{name: "quantised fb 60", args: []string{"compare", "a.json", "b.json", "--pairing", "quantised", "--input-frac-bits", "60"}},
	{name: "quantised nearest far box", args: []string{"compare", "a.json", "b.json", "--pairing", "quantised", "--input-rounding", "nearest", "--box", "1000:1003"}},
	{name: "point box", args: []string{"compare", "a.json", "b.json", "--box", "0.3:0.3"}},
	{name: "tiny box", args: []string{"compare", "a.json", "b.json", "--box", "0.3:0.3000000000000001"}},
	{name: "huge box", args: []string{"compare", "a.json", "b.json", "--box=-1e300:1e300"}},
	{name: "widest box", args: []string{"compare", "a.json", "b.json", "--box=-1.7976931348623157e308:1.7976931348623157e308"}},
	{name: "subnormal box", args: []string{"compare", "a.json", "b.json", "--box=-5e-324:5e-324"}},
	{name: "big weights", args: []string{"compare", "big.json", "a.json"}},
	{name: "big weights same", args: []string{"compare", "big.json", "big.json", "--pairing", "same"}},
	{name: "tiny weights", args: []string{"compare", "tiny.json", "a.json", "--pairing", "same"}},
	{name: "interval", args: []string{"compare", "a.json", "b.json", "--method", "interval", "--box=-1e200:1e200"}},
	{name: "inf norm two outputs", args: []string{"compare", "w.json", "h.json", "--norm", "inf"}},
	{name: "output 1", args: []string{"compare", "w.json", "h.json", "--output", "1", "--pairing", "same"}},
	{name: "paper set", args: []string{"compare", "w.json", "h.json", "--qc", "paper", "--lo", "-1,0", "--hi", "1,0"}},
	{name: "plot point box", args: []string{"compare", "a.json", "b.json", "--box", "0:0", "--plot", "p.png"}, plot: "p.png"},
	{name: "plot huge box", args: []string{"compare", "a.json", "b.json", "--box=-1e300:1e300", "--plot", "p.svg"}, plot: "p.svg"},
	{name: "quantise saturate big", args: []string{"quantise", "big.json", "--frac-bits", "2", "--int-bits", "3", "--saturate", "--save", "q.json", "--certify"}},
	{name: "quantise frac 52", args: []string{"quantise", "b.json", "--frac-bits", "52", "--save", "q.json", "--certify", "--json"}},
	{name: "prune all weights", args: []string{"prune", "w.json", "--sparsity", "1", "--save", "q.json", "--certify"}},
}

func TestCLIExtremes(t *testing.T) {
	files := map[string]string{"a.json": netA, "b.json": netB, "big.json": netBig, "tiny.json": netTiny, "w.json": netWide2, "h.json": netHT2}
	for _, c := range cliCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{}, c.args...)
			if args[0] == "compare" || slicesContains(args, "--certify") {
				args = append(args, "--max-pieces", "4", "--time-budget", "0", "--samples", "200")
			}
			r := runCLI(t, dir, args...)
			if r.code != 0 && r.code != 1 && r.code != 2 {
				t.Errorf("exit code %d\n%s", r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("stack trace on stderr:\n%s", r.stderr)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.Contains(e.Name(), ".tmp") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
			if c.plot != "" && r.code != 0 {
				if _, err := os.Stat(filepath.Join(dir, c.plot)); err == nil {
					t.Errorf("exit %d but the figure %s was written", r.code, c.plot)
				}
			}
			// Text reports: a certified bound below the observed error.
			if b, e, ok := textBoundAndError(r.stdout); ok && b < e && !math.IsInf(e, 0) {
				t.Errorf("certified bound %v below the observed error %v:\n%s", b, e, r.stdout)
			}
		})
	}
}

func slicesContains(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}

// textBoundAndError reads "certified yes", "bound B" and "observed error E"
// from a text report.
func textBoundAndError(out string) (b, e float64, ok bool) {
	var cert, hasB, hasE bool
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "certified":
			cert = f[1] == "yes"
		case len(f) >= 2 && f[0] == "bound":
			hasB = parseFloat(f[1], &b)
		case len(f) >= 3 && f[0] == "observed" && f[1] == "error":
			hasE = parseFloat(f[2], &e)
		}
	}
	return b, e, cert && hasB && hasE
}

func parseFloat(s string, v *float64) bool {
	err := json.Unmarshal([]byte(s), v)
	return err == nil
}

// TestReproCLINormLabel: with --norm inf or --output K the command prints
// the inf-norm or one output's bound as "certified max of ||f1(x1) -
// f2(x2)||_2 over the input set" (and --json as "bound", which the README
// defines as the 2-norm bound), with gammas "in ||f1 - f2||^2 <= gamma +
// ...". For w.json and h.json on the same input both print bound 7, but at
// x = (1, 1) the outputs differ by (2.417, 7): ||f1 - f2||_2 = 7.41.
func TestReproCLINormLabel(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"w.json": netWide2, "h.json": netHT2} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f1, err := jsonnet.Parse("w.json", []byte(netWide2))
	if err != nil {
		t.Fatal(err)
	}
	f2, err := jsonnet.Parse("h.json", []byte(netHT2))
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, 1}
	y1, _ := f1.Eval(x)
	y2, _ := f2.Eval(x)
	norm2 := math.Hypot(y1[0]-y2[0], y1[1]-y2[1])
	for _, extra := range [][]string{{"--norm", "inf"}, {"--output", "1"}} {
		args := append([]string{"compare", "w.json", "h.json", "--pairing", "same", "--max-pieces", "1"}, extra...)
		r := runCLI(t, dir, args...)
		b, _, ok := textBoundAndError(r.stdout)
		if ok && b < norm2 && strings.Contains(r.stdout, "||f1(x1) - f2(x2)||_2") {
			t.Errorf("nnbound %v prints %v as the certified max of ||f1 - f2||_2, which is %v at x = %v:\n%s",
				strings.Join(args, " "), b, norm2, x, r.stdout)
		}
	}
}
