package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/vnncomp"
)

// vnncompBench writes a benchmark folder whose instances file has the
// given rows, "ok" for a good one and "missing" for one naming a missing
// network, and returns the instances file.
func vnncompBench(t *testing.T, rows ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"a.onnx", "b.onnx", "p.vnnlib"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("stub"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for _, r := range rows {
		net := map[string]string{"ok": "b.onnx", "missing": "gone.onnx"}[r]
		fmt.Fprintf(&b, "\"[('f', 'a.onnx'), ('g', '%s')]\",p.vnnlib,5\n", net)
	}
	csv := filepath.Join(dir, "instances.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return csv
}

func TestVnncompCommand(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		rows     []string
		flags    []string
		env      map[string]string
		cancelAt int // row whose decision cancels the run; -1 for none
		ran      []int
		err      string // part of the error; "" for none
		usage    bool
		stdout   string // part of stdout
		stderr   string // part of stderr
	}{
		{name: "all rows", rows: []string{"ok", "ok", "ok"}, cancelAt: -1, ran: []int{0, 1, 2},
			stdout: "unsat           3             0", stderr: "row 2: unsat"},
		{name: "--json", rows: []string{"ok", "missing"}, flags: []string{"--json"}, cancelAt: -1, ran: []int{0}, err: "1 row ended in error",
			stdout: `"this_run": {
    "error": 1,
    "sat": 0,
    "timeout": 0,
    "unknown": 0,
    "unsat": 1
  },`},
		{name: "--shard", rows: []string{"ok", "ok", "ok"}, flags: []string{"--shard", "1/2"}, cancelAt: -1, ran: []int{1},
			stdout: "shard 1/2: 1 of 3 rows"},
		{name: "shard from Slurm", rows: []string{"ok", "ok", "ok"}, cancelAt: -1, ran: []int{0, 2},
			env:    map[string]string{vnncomp.EnvSlurmID: "1", vnncomp.EnvSlurmMin: "1", vnncomp.EnvSlurmCount: "2"},
			stderr: "vnncomp: shard 0/2 (from SLURM_ARRAY_TASK_ID)"},
		{name: "bad --shard", rows: []string{"ok"}, flags: []string{"--shard", "2/2"}, cancelAt: -1,
			err: "K must be in [0, 2)", usage: true},
		{name: "bad Slurm variables", rows: []string{"ok"}, cancelAt: -1,
			env: map[string]string{vnncomp.EnvSlurmID: "1"}, err: "SLURM_ARRAY_TASK_COUNT is not"},
		{name: "missing file", rows: []string{"ok", "missing", "ok"}, cancelAt: -1, ran: []int{0, 2},
			err: "1 row ended in error", stdout: "error           1", stderr: "gone.onnx does not exist"},
		{name: "unwritable result directory", rows: []string{"ok"}, flags: []string{"--out", filepath.Join(blocker, "r")}, cancelAt: -1,
			err: "cannot create the result directory"},
		{name: "interrupted", rows: []string{"ok", "ok", "ok"}, cancelAt: 1, ran: []int{0, 1},
			err: "interrupted", stdout: "interrupted: 2 rows not run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			csv := vnncompBench(t, tt.rows...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var ran []int
			decide := func(_ context.Context, in vnncomp.Instance) vnncomp.Outcome {
				ran = append(ran, in.Index)
				if in.Index == tt.cancelAt {
					cancel()
				}
				return vnncomp.Outcome{Result: vnncomp.Unsat}
			}
			cmd := newVnncompCmd(decide, func(k string) string { return tt.env[k] })
			var stdout, stderr strings.Builder
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			out := filepath.Join(t.TempDir(), "results")
			cmd.SetArgs(append([]string{csv, "--out", out}, tt.flags...))
			err := cmd.ExecuteContext(ctx)
			if (tt.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err %v, want %q", err, tt.err)
			}
			var ue usageError
			if errors.As(err, &ue) != tt.usage {
				t.Errorf("usage error: %v, want %v", errors.As(err, &ue), tt.usage)
			}
			if fmt.Sprint(ran) != fmt.Sprint(tt.ran) {
				t.Errorf("rows run %v, want %v", ran, tt.ran)
			}
			if !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stdout\n%s\nstderr\n%s\nwant %q and %q", stdout.String(), stderr.String(), tt.stdout, tt.stderr)
			}
		})
	}
}
