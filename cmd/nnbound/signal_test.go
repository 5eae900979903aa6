package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cancelAfter is a stderr that cancels a context when the -v log has
// printed its marker n times (by default "iter ", the solver's iteration
// log beginning its n-th solve): a point the command is sure to reach,
// whatever the machine's speed.
type cancelAfter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	n      int
	marker string
	cancel context.CancelFunc
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	marker := w.marker
	if marker == "" {
		marker = "iter "
	}
	if strings.Count(w.buf.String(), marker) >= w.n {
		w.cancel()
	}
	return len(p), nil
}

// TestCancel stops each long-running command during its n-th SDP solve
// (verify: after its n-th batch of boxes), as SIGINT would (with no time
// budget, so that no SDP is skipped): it must exit 130, print what it had
// finished and leave no files behind other than those it had finished.
func TestCancel(t *testing.T) {
	q8 := filepath.Join(t.TempDir(), "q8.onnx")
	var out, errs bytes.Buffer
	if code := run([]string{"quantise", sin3x, "--frac-bits", "8", "--save", q8}, &out, &errs); code != exitOK {
		t.Fatalf("quantise: exit %d: %s", code, errs.String())
	}
	cases := []struct {
		name   string
		args   []string
		n      int
		marker string   // in the -v log; "" for the solver's "iter "
		want   []string // in stdout
	}{
		{"sweep", []string{"sweep", tinyNNet, "--frac-bits", "2,3,4", "--max-pieces", "1", "--timeout", "0", "--plot", "DIR/s.png"}, 2,
			"", []string{"cancelled after 1 of 3 rows"}},
		{"sweep json", []string{"sweep", tinyNNet, "--frac-bits", "2,3,4", "--max-pieces", "1", "--timeout", "0", "--json"}, 2,
			"", []string{`"status": "cancelled after 1 of 3 rows"`, `"frac_bits": 2`}},
		{"allocate", []string{"allocate", tinyNNet, "--frac-bits", "2:6", "--target-error", "0.5", "--max-pieces", "1", "--timeout", "0", "--starts", "1"}, 3,
			"", []string{"smallest single FB with certified bound <= 0.5: 3", "cancelled by a signal", "certified       yes"}},
		{"quantise root", []string{"quantise", tinyNNet, "--frac-bits", "2", "--certify", "--timeout", "0"}, 1,
			"", []string{"certified       yes", "stopped         cancelled", "root SDP: SDP solve cancelled"}}, // the cheap refinement's bound
		{"quantise refining", []string{"quantise", actJSON, "--frac-bits", "2", "--certify", "--timeout", "0", "--save", "DIR/q.json"}, 2,
			"", []string{"certified       yes", "saved:", "interrupted     by a signal: the bound holds"}},
		{"compare", []string{"compare", sin3x, q8, "--timeout", "0"}, 1,
			"", []string{"interrupted     by a signal", "CPU (the process's, all threads)"}},
		{"compare json", []string{"compare", sin3x, q8, "--timeout", "0", "--json"}, 1,
			"", []string{`"interrupted": true`, `"cpu_seconds"`}},
		{"paper", []string{"paper", "table1", "--runs", "3", "--layers", "1", "--jobs", "1", "--out", "DIR/paper"}, 2,
			"", []string{"nnbound paper table1"}},
		// After 2 of the 4 batches that decide it (7 boxes).
		{"verify", []string{"verify", sin3x, q8, "--epsilon", "0.03"}, 2, "boxes bounded",
			[]string{"verdict   unknown (cancelled)", "nodes     3 boxes bounded"}},
		{"verify json", []string{"verify", sin3x, q8, "--epsilon", "0.03", "--json"}, 2, "boxes bounded",
			[]string{`"verdict": "unknown"`, `"nodes": 3`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{tc.args[0], "-v"}
			for _, a := range tc.args[1:] {
				args = append(args, strings.ReplaceAll(a, "DIR", dir))
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stderr := &cancelAfter{n: tc.n, marker: tc.marker, cancel: cancel}
			var stdout bytes.Buffer
			code := runContext(ctx, nil, args, &stdout, stderr)
			if code != exitCancelled {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, exitCancelled, stderr.buf.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			if !strings.Contains(stderr.buf.String(), "nnbound: cancelled") && !strings.Contains(stderr.buf.String(), "cancelled after") {
				t.Errorf("stderr does not say the command was cancelled:\n%s", stderr.buf.String())
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			for _, f := range files {
				if filepath.Base(f) != "q.json" {
					t.Errorf("left %s behind", f)
				}
			}
		})
	}
}

// TestSignalsInstalled checks that a command that starts its work runs
// under the signal handling (runContext's signals), and that version and
// help install none.
func TestSignalsInstalled(t *testing.T) {
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"version"}, false},
		{[]string{"inspect", "--help"}, false},
		{[]string{"inspect", tinyNNet}, true},
	}
	for _, tc := range cases {
		installed, stopped := false, false
		signals := func(ctx context.Context) (context.Context, context.CancelFunc) {
			installed = true
			ctx, cancel := context.WithCancel(ctx)
			return ctx, func() { stopped = true; cancel() }
		}
		if code := runContext(context.Background(), signals, tc.args, io.Discard, io.Discard); code != exitOK {
			t.Errorf("%v: exit code %d", tc.args, code)
		}
		if installed != tc.want || stopped != installed {
			t.Errorf("%v: signal handling installed %v, stopped %v; want installed %v", tc.args, installed, stopped, tc.want)
		}
	}
}
