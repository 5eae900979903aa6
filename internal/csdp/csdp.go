// Package csdp runs the CSDP solver (csdp on PATH) on an sdp.Problem, for
// tests and benchmarks that compare nnbound's solver with it on the same
// SDP. nnbound itself never needs it.
package csdp

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
	"time"

	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdpa"
)

// Available reports whether csdp is on PATH.
func Available() bool {
	_, err := exec.LookPath("csdp")
	return err == nil
}

// Solve solves p with the csdp program through an SDPA file in dir and
// returns CSDP's dual vector y as the SDPA-form x (CSDP's dual is the SDPA
// primal). The status is Optimal for csdp's exit code 0, NearOptimal for 3
// ("partial success") and NumericalTrouble otherwise; Iterations counts
// csdp's "Iter:" lines and Time is the wall time of the process.
func Solve(ctx context.Context, p *sdp.Problem, dir string) (*sdp.Result, error) {
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
