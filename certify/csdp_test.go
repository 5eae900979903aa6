package certify

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdpa"
)

// csdpSolve solves p with the csdp program (CSDP 6) through an SDPA file,
// returning CSDP's y as our x. It needs csdp on PATH.
func csdpSolve(ctx context.Context, p *sdp.Problem, dir string) (*sdp.Result, error) {
	in := filepath.Join(dir, "p.dat-s")
	out := filepath.Join(dir, "p.sol")
	f, err := os.Create(in)
	if err != nil {
		return nil, err
	}
	if err := sdpa.Write(f, p); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, "csdp", in, out)
	msg, runErr := cmd.CombinedOutput()
	res := &sdp.Result{Time: time.Since(start), Status: sdp.Optimal}
	var ee *exec.ExitError
	switch {
	case runErr == nil:
	case errors.As(runErr, &ee) && ee.ExitCode() == 3:
		res.Status = sdp.NearOptimal
	case errors.As(runErr, &ee):
		res.Status = sdp.NumericalTrouble
		return res, nil
	default:
		return nil, fmt.Errorf("csdp: %v: %s", runErr, msg)
	}
	for _, line := range strings.Split(string(msg), "\n") {
		if strings.HasPrefix(line, "Iter:") {
			res.Iterations++
		}
	}
	sf, err := os.Open(out)
	if err != nil {
		return nil, err
	}
	defer sf.Close()
	sc := bufio.NewScanner(sf)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	if !sc.Scan() {
		return nil, fmt.Errorf("csdp: empty solution file")
	}
	for _, tok := range strings.Fields(sc.Text()) {
		v, err := strconv.ParseFloat(strings.Replace(tok, "D", "e", 1), 64)
		if err != nil {
			return nil, fmt.Errorf("csdp: solution: %w", err)
		}
		res.X = append(res.X, v)
	}
	if len(res.X) != p.NumVars() {
		return nil, fmt.Errorf("csdp: %d values for %d variables", len(res.X), p.NumVars())
	}
	for i, c := range p.C {
		res.PrimalObjective += c * res.X[i]
	}
	return res, nil
}

// useCSDP makes Bound solve with csdp for the rest of the test (skipping
// when csdp is absent).
func useCSDP(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("csdp"); err != nil {
		t.Skip("csdp not installed")
	}
	dir := t.TempDir()
	old := solveSDP
	solveSDP = func(ctx context.Context, p *sdp.Problem, _ *sdp.Settings) (*sdp.Result, error) {
		return csdpSolve(ctx, p, dir)
	}
	t.Cleanup(func() { solveSDP = old })
}
