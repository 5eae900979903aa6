package vnncomp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// row is a CSV line of a good instance whose result file is file(i).
func row(i int) string {
	return fmt.Sprintf(`"[('f', 'onnx/a.onnx'), ('g', 'onnx/b.onnx')]",vnnlib/p%d.vnnlib,10`, i)
}

func file(i int) string { return fmt.Sprintf("%04d_a+b+p%d.txt", i, i) }

// bench writes a benchmark folder with networks a and b, specifications
// p0 ... p9 and an instances file of the given lines, and returns the
// path of the instances file.
func bench(t *testing.T, lines []string) string {
	t.Helper()
	dir := t.TempDir()
	files := []string{"onnx/a.onnx", "onnx/b.onnx"}
	for i := range 10 {
		files = append(files, fmt.Sprintf("vnnlib/p%d.vnnlib", i))
	}
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("stub"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	csv := filepath.Join(dir, "instances.csv")
	if err := os.WriteFile(csv, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return csv
}

// stub is a Decider returning canned outcomes (Unsat by default), each
// taking i+1 seconds by its own account, and recording the rows called.
// On row cancelAt it cancels the run before returning.
type stub struct {
	outcomes map[int]Outcome
	cancelAt int
	cancel   context.CancelFunc
	calls    []int
}

func (s *stub) decide(ctx context.Context, in Instance) Outcome {
	s.calls = append(s.calls, in.Index)
	if _, ok := ctx.Deadline(); !ok {
		return Outcome{Result: Error, Err: errors.New("no time limit in the context")}
	}
	if in.Index == s.cancelAt {
		s.cancel()
		return Outcome{Result: Unknown, Time: time.Second}
	}
	o, ok := s.outcomes[in.Index]
	if !ok {
		o = Outcome{Result: Unsat}
	}
	o.Time = time.Duration(in.Index+1) * time.Second
	return o
}

func TestRun(t *testing.T) {
	five := []string{row(0), row(1), row(2), row(3), row(4)}
	sat := Outcome{Result: Sat, Witness: twoNetWitness(), Detail: map[string]float64{"error": 0.5}}
	satFile := "sat\nX_f float32 [2]\n0.6000000238418579\n-0.5\nY_f float32 [1]\n0.3333333432674408\n" +
		"X_g float32 [2]\n0.6000000238418579\n-0.5\nY_g float32 [1]\n0.25\n"
	tests := []struct {
		name        string
		lines       []string
		shard       Shard
		before      map[int]string  // result files present before the run
		outcomes    map[int]Outcome // of the stub; Unsat if absent
		cancelAt    int             // row during which the run is cancelled; -1 for none
		wantCalls   []int
		wantFiles   map[int]string    // result files after the run, by row; no others
		wantOther   map[string]string // result files not named by file(i)
		wantLog     []int             // rows logged, in order
		wantCounts  map[Result]int
		wantResumed map[Result]int
		wantErr     error
		wantReport  []string
		interrupted int // rows of the shard not run or discarded
	}{
		{name: "every result", lines: five, cancelAt: -1,
			outcomes:   map[int]Outcome{1: sat, 2: {Result: Timeout}, 3: {Result: Unknown}, 4: {Result: Error, Err: errors.New("unsupported op Conv")}},
			wantCalls:  []int{0, 1, 2, 3, 4},
			wantFiles:  map[int]string{0: "unsat\n", 1: satFile, 2: "timeout\n", 3: "unknown\n", 4: "error\n"},
			wantLog:    []int{0, 1, 2, 3, 4},
			wantCounts: map[Result]int{Unsat: 1, Sat: 1, Timeout: 1, Unknown: 1, Error: 1},
			wantReport: []string{"row 1: sat in 2 s", "row 4: error: unsupported op Conv"}},
		{name: "resume skips rows with a result and retries errors", lines: five, cancelAt: -1,
			before:      map[int]string{1: "sat\nX_f real [1]\n1\n", 2: "error\n", 3: "unknown\n", 4: "garbage\n"},
			wantCalls:   []int{0, 2},
			wantFiles:   map[int]string{0: "unsat\n", 1: "sat\nX_f real [1]\n1\n", 2: "unsat\n", 3: "unknown\n", 4: "garbage\n"},
			wantLog:     []int{0, 2},
			wantCounts:  map[Result]int{Unsat: 2},
			wantResumed: map[Result]int{Sat: 1, Unknown: 1, "?": 1},
			wantReport:  []string{"row 1: sat (result file from an earlier run, not run again)"}},
		{name: "shard 1/2", lines: five, shard: Shard{1, 2}, cancelAt: -1,
			wantCalls: []int{1, 3}, wantFiles: map[int]string{1: "unsat\n", 3: "unsat\n"}, wantLog: []int{1, 3},
			wantCounts: map[Result]int{Unsat: 2}},
		{name: "missing file and malformed row", cancelAt: -1,
			lines: []string{row(0), `"[('f', 'onnx/a.onnx'), ('g', 'onnx/missing.onnx')]",vnnlib/p1.vnnlib,10`,
				`"[('f', 'onnx/a.onnx')",vnnlib/p2.vnnlib,10`, row(3)},
			wantCalls:  []int{0, 3},
			wantFiles:  map[int]string{0: "unsat\n", 3: "unsat\n"},
			wantOther:  map[string]string{"0001_a+missing+p1.txt": "error\n", "0002_.txt": "error\n"},
			wantLog:    []int{0, 1, 2, 3},
			wantCounts: map[Result]int{Unsat: 2, Error: 2},
			wantReport: []string{"row 1: error: ", "missing.onnx does not exist", "row 2: error: ", "instances.csv:3: networks field"}},
		{name: "decider contradicting itself", lines: five[:2], cancelAt: -1,
			outcomes:   map[int]Outcome{1: {Result: Sat}},
			wantCalls:  []int{0, 1},
			wantFiles:  map[int]string{0: "unsat\n", 1: "error\n"},
			wantLog:    []int{0, 1},
			wantCounts: map[Result]int{Unsat: 1, Error: 1},
			wantReport: []string{"row 1: error: decider: result sat without a counterexample"}},
		{name: "cancel mid-run", lines: five, cancelAt: 2,
			wantCalls:  []int{0, 1, 2},
			wantFiles:  map[int]string{0: "unsat\n", 1: "unsat\n"},
			wantLog:    []int{0, 1},
			wantCounts: map[Result]int{Unsat: 2},
			wantErr:    context.Canceled,
			wantReport: []string{"row 2: interrupted, nothing written"}, interrupted: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			csv := bench(t, tt.lines)
			out := filepath.Join(t.TempDir(), "results")
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, content := range tt.before {
				if err := os.WriteFile(filepath.Join(out, file(i)), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := &stub{outcomes: tt.outcomes, cancelAt: tt.cancelAt, cancel: cancel}
			var report strings.Builder
			sum, err := Run(ctx, csv, s.decide, Options{Dir: out, Shard: tt.shard, Report: &report})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Run error %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(s.calls, tt.wantCalls) {
				t.Errorf("decider called on rows %v, want %v", s.calls, tt.wantCalls)
			}
			for name, content := range tt.wantOther {
				if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(got) != content {
					t.Errorf("%s: %q, %v; want %q", name, got, err, content)
				}
				os.Remove(filepath.Join(out, name))
			}
			checkDir(t, out, tt.wantFiles, tt.shard)
			checkLog(t, filepath.Join(out, LogFile(sum.Shard)), tt.wantLog)
			if !reflect.DeepEqual(sum.Counts, tt.wantCounts) || len(sum.Resumed)+len(tt.wantResumed) > 0 && !reflect.DeepEqual(sum.Resumed, tt.wantResumed) {
				t.Errorf("counts %v resumed %v, want %v and %v", sum.Counts, sum.Resumed, tt.wantCounts, tt.wantResumed)
			}
			if sum.Interrupted != tt.interrupted {
				t.Errorf("%d rows interrupted, want %d", sum.Interrupted, tt.interrupted)
			}
			if sum.Failed() != (tt.wantCounts[Error] > 0) {
				t.Errorf("Failed() = %v", sum.Failed())
			}
			if err := sum.Err(out); (err != nil) != sum.Failed() || err != nil && !strings.Contains(err.Error(), filepath.Join(out, LogFile(tt.shard))) {
				t.Errorf("Err(%s) = %v with Failed() = %v", out, err, sum.Failed())
			}
			for _, want := range tt.wantReport {
				if !strings.Contains(report.String(), want) {
					t.Errorf("report lacks %q:\n%s", want, report.String())
				}
			}
		})
	}
}

// checkDir checks that dir holds exactly the wanted result files and the
// log: no temporary file, no result file for an errored row.
func checkDir(t *testing.T, dir string, want map[int]string, s Shard) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	for i, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, file(i)))
		if err != nil || string(got) != content {
			t.Errorf("%s: %q, %v; want %q", file(i), got, err, content)
		}
		delete(names, file(i))
	}
	delete(names, LogFile(s))
	if len(names) > 0 {
		t.Errorf("unexpected files in the result directory: %v", names)
	}
}

// checkLog checks that the log has one line per wanted row, in order,
// each a JSON object with the fields of the format.
func checkLog(t *testing.T, path string, rows []int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(rows) == 0 && string(data) == "" {
		return
	}
	if len(lines) != len(rows) {
		t.Fatalf("log has %d lines, want %d:\n%s", len(lines), len(rows), data)
	}
	for k, line := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("log line %d: %v", k, err)
		}
		for _, field := range []string{"index", "networks", "spec", "timeout_seconds", "result", "seconds"} {
			if _, ok := got[field]; !ok {
				t.Errorf("log line %d lacks %s: %s", k, field, line)
			}
		}
		if got["index"] != float64(rows[k]) {
			t.Errorf("log line %d is row %v, want %d", k, got["index"], rows[k])
		}
		if got["result"] == string(Error) && got["error"] == nil {
			t.Errorf("log line %d: error without a reason: %s", k, line)
		}
	}
}

func TestRunLogLine(t *testing.T) {
	csv := bench(t, []string{row(0), row(1)})
	out := t.TempDir()
	s := &stub{cancelAt: -1, outcomes: map[int]Outcome{
		0: {Result: Sat, Witness: twoNetWitness(), Detail: map[string]any{"bound": 0.5, "nodes": 3}},
		1: {Result: Unknown, Detail: math.NaN()},
	}}
	if _, err := Run(context.Background(), csv, s.decide, Options{Dir: out}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(csv)
	want := fmt.Sprintf(`{"schema":1,"index":0,"networks":[{"name":"f","path":%q},{"name":"g","path":%q}],"spec":%q,"timeout_seconds":10,`+
		`"result":"sat","seconds":1,"result_file":%q,"detail":{"bound":0.5,"nodes":3}}`+"\n",
		filepath.Join(dir, "onnx/a.onnx"), filepath.Join(dir, "onnx/b.onnx"), filepath.Join(dir, "vnnlib/p0.vnnlib"), filepath.Join(out, file(0)))
	lines := strings.SplitAfter(string(data), "\n")
	if lines[0] != want {
		t.Errorf("log line\n%s\nwant\n%s", lines[0], want)
	}
	if !strings.Contains(lines[1], `"result":"unknown"`) || !strings.Contains(lines[1], `"detail_error":"json: unsupported value: NaN"`) {
		t.Errorf("a detail that is not JSON should be reported, not fail the row: %s", lines[1])
	}
}

func TestRunShardsCoverEveryRowOnce(t *testing.T) {
	lines := []string{row(0), row(1), row(2), row(3), row(4), row(5), row(6)}
	csv := bench(t, lines)
	out := t.TempDir()
	var all []int
	for k := range 3 {
		s := &stub{cancelAt: -1}
		sum, err := Run(context.Background(), csv, s.decide, Options{Dir: out, Shard: Shard{k, 3}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Mine != len(s.calls) {
			t.Errorf("shard %d: %d rows, %d run", k, sum.Mine, len(s.calls))
		}
		all = append(all, s.calls...)
		if _, err := os.Stat(filepath.Join(out, fmt.Sprintf("log-%d-of-3.jsonl", k))); err != nil {
			t.Error(err)
		}
	}
	slices.Sort(all)
	if !slices.Equal(all, []int{0, 1, 2, 3, 4, 5, 6}) {
		t.Errorf("rows run over the shards: %v", all)
	}
}

func TestRunUnwritableDirectory(t *testing.T) {
	csv := bench(t, []string{row(0)})
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{blocker, filepath.Join(blocker, "results")} {
		s := &stub{cancelAt: -1}
		_, err := Run(context.Background(), csv, s.decide, Options{Dir: dir})
		if err == nil || len(s.calls) > 0 {
			t.Fatalf("%s: err %v after %d rows; want an error before any", dir, err, len(s.calls))
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "result directory "+dir) || strings.Count(msg, dir) != 1 {
			t.Errorf("want one line naming the directory once: %q", msg)
		}
	}
}

func TestRunBadInputsBeforeWork(t *testing.T) {
	csv := bench(t, []string{row(0)})
	s := &stub{cancelAt: -1}
	for _, tt := range []struct {
		name  string
		csv   string
		opts  Options
		deci  Decider
		match string
	}{
		{"no instances file", csv + ".missing", Options{Dir: t.TempDir()}, s.decide, "cannot read the instances file"},
		{"no directory", csv, Options{}, s.decide, "no result directory"},
		{"bad shard", csv, Options{Dir: t.TempDir(), Shard: Shard{2, 2}}, s.decide, "K must be in [0, 2)"},
		{"no decider", csv, Options{Dir: t.TempDir()}, nil, "no decider"},
		{"negative timeout scale", csv, Options{Dir: t.TempDir(), TimeoutScale: -1}, s.decide, "timeout scale"},
	} {
		if _, err := Run(context.Background(), tt.csv, tt.deci, tt.opts); err == nil || !strings.Contains(err.Error(), tt.match) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.match)
		}
	}
	if len(s.calls) > 0 {
		t.Errorf("rows run despite bad input: %v", s.calls)
	}
}

func TestRunDeciderPanicIsThatRowsError(t *testing.T) {
	csv := bench(t, []string{row(0), row(1)})
	out := t.TempDir()
	decide := func(ctx context.Context, in Instance) Outcome {
		if in.Index == 0 {
			var w *Witness
			_ = w.Vars[0] // a bug
		}
		return Outcome{Result: Unsat, Time: time.Second}
	}
	sum, err := Run(context.Background(), csv, decide, Options{Dir: out})
	if err != nil || sum.Counts[Error] != 1 || sum.Counts[Unsat] != 1 {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	if got, err := os.ReadFile(filepath.Join(out, file(0))); err != nil || string(got) != "error\n" {
		t.Errorf("result file of a row whose decider panicked: %q, %v; want error", got, err)
	}
}

func TestSummaryTable(t *testing.T) {
	s := newSummary(Shard{1, 3}, 11)
	s.Mine = 4
	s.add(Outcome{Result: Unsat, Time: 1500 * time.Millisecond})
	s.add(Outcome{Result: Sat, Time: 2 * time.Second})
	s.add(Outcome{Result: Error})
	s.Resumed[Unsat] = 1
	s.Interrupted = 0
	var b strings.Builder
	if err := s.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `result   this run  earlier runs
unsat           1             1
sat             1             0
timeout         0             0
unknown         0             0
error           1             0
total           3             1
shard 1/3: 4 of 11 rows; 3.5 s in the rows run now
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestRunTimeoutScale checks that the decider sees the row's time limit
// times the scale (10 s * 0.25).
func TestRunTimeoutScale(t *testing.T) {
	csv := bench(t, []string{row(0)})
	var got time.Duration
	decide := func(_ context.Context, in Instance) Outcome {
		got = in.Timeout
		return Outcome{Result: Unknown}
	}
	if _, err := Run(context.Background(), csv, decide, Options{Dir: t.TempDir(), TimeoutScale: 0.25}); err != nil {
		t.Fatal(err)
	}
	if got != 2500*time.Millisecond {
		t.Errorf("time limit %v, want 2.5s", got)
	}
}

func TestRunVerdictAfterTheLimitIsTimeout(t *testing.T) {
	csv := bench(t, []string{`"[('f', 'onnx/a.onnx'), ('g', 'onnx/b.onnx')]",vnnlib/p0.vnnlib,0.001`, row(1)})
	out := t.TempDir()
	decide := func(ctx context.Context, in Instance) Outcome {
		if in.Index == 0 {
			time.Sleep(18 * time.Millisecond) // the decider reports less than it took
			return Outcome{Result: Unsat, Time: time.Millisecond / 2}
		}
		return Outcome{Result: Unsat}
	}
	sum, err := Run(context.Background(), csv, decide, Options{Dir: out})
	if err != nil || sum.Counts[Timeout] != 1 || sum.Counts[Unsat] != 1 {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	if got, err := os.ReadFile(filepath.Join(out, file(0))); err != nil || string(got) != "timeout\n" {
		t.Errorf("row 0: %q, %v; want timeout", got, err)
	}
	if o := Late(Outcome{Result: Unknown, Time: time.Second}, time.Millisecond); o.Result != Unknown {
		t.Errorf("Late changed an unknown into %s", o.Result)
	}
}
