package vnncomp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/internal/schema"
)

// Options are the settings of Run.
type Options struct {
	// Dir is the result directory, created if missing. It receives one
	// result file per finished instance and the JSON-lines log.
	Dir string
	// Shard selects the rows to run; the zero Shard means All.
	Shard Shard
	// Report receives one line per row of the shard as it ends (its
	// result, or why it could not run); nil for none.
	Report io.Writer
	// TimeoutScale multiplies every row's time limit (a slower or faster
	// machine than the benchmark's); 0 means 1.
	TimeoutScale float64
}

// Run runs the rows of the instances file that belong to opts.Shard, in
// file order, one at a time, calling decide on each with a context that
// carries the row's time limit (times TimeoutScale). For each row it
//
//   - skips the row if its result file exists and does not say error
//     (resuming an earlier run);
//   - records an Error outcome, without calling decide, if the row is
//     malformed or names a file that does not exist;
//   - otherwise writes the result file (ResultFile) atomically; an
//     outcome Sat or Unsat that took longer than the limit is written
//     as Timeout (Late). A row that errors, runnable or not, gets the
//     result file "error", which a rerun does not count as done;
//   - appends one line to the JSON-lines log (LogFile), written with a
//     single write to a file opened for appending.
//
// An outcome that contradicts itself (Sat without a well-formed witness,
// say) is recorded as Error with the reason, never repaired. A panic in
// decide is recorded as Error for its row.
//
// Before any row runs, Run checks that the instances file can be read and
// that opts.Dir can be written; either failure is its error, with nothing
// run. When ctx is done, Run starts no further row, discards the outcome
// of the row it interrupted (no result file, no log line), and returns the
// summary so far with ctx.Err(). Otherwise the error is nil, whatever the
// rows' results: see Summary.Failed.
func Run(ctx context.Context, instances string, decide Decider, opts Options) (*Summary, error) {
	shard := opts.Shard
	if shard == (Shard{}) {
		shard = All
	}
	if err := shard.Validate(); err != nil {
		return nil, err
	}
	if decide == nil {
		return nil, errors.New("vnncomp: no decider")
	}
	scale := opts.TimeoutScale
	if scale == 0 {
		scale = 1
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, fmt.Errorf("vnncomp: timeout scale %v, want positive and finite", opts.TimeoutScale)
	}
	rows, err := ReadInstances(instances)
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(opts.Dir, LogFile(shard))
	log, err := openOutput(opts.Dir, logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	report := opts.Report
	if report == nil {
		report = io.Discard
	}
	r := &runner{csv: instances, dir: opts.Dir, decide: decide, log: log, logPath: logPath, report: report, scale: scale}
	sum := newSummary(shard, len(rows))
	for _, row := range rows {
		if !shard.Has(row.Index) {
			continue
		}
		sum.Mine++
		if ctx.Err() != nil {
			sum.Interrupted++
			continue
		}
		if err := r.row(ctx, row, sum); err != nil {
			return sum, err
		}
	}
	return sum, ctx.Err()
}

// LogFile is the name of the JSON-lines log in the result directory:
// log.jsonl for an unsharded run, log-K-of-N.jsonl for shard K/N, so that
// shards sharing a directory over a network file system never append to
// the same file.
func LogFile(s Shard) string {
	if s.N <= 1 {
		return "log.jsonl"
	}
	return fmt.Sprintf("log-%d-of-%d.jsonl", s.K, s.N)
}

// ResultFile is the name of the result file of an instance:
//
//	NNNN_NET1+NET2+SPEC.txt
//
// the row index (at least four digits) and the names of the row's files
// without folder and extension, characters other than letters, digits,
// '.', '_' and '-' replaced by '-'. It depends only on the row, so a rerun
// finds the files of an earlier one; a row whose files change gets a new
// name and runs again.
func ResultFile(in Instance) string {
	parts := make([]string, 0, len(in.Networks)+1)
	for _, n := range in.Networks {
		parts = append(parts, stem(n.Path))
	}
	parts = append(parts, stem(in.Spec))
	return fmt.Sprintf("%04d_%s.txt", in.Index, strings.Join(parts, "+"))
}

// stem returns the file name of p without its extension (and without a
// .gz after it), made safe for a file name and at most 60 bytes long.
func stem(p string) string {
	base := strings.TrimSuffix(filepath.Base(p), ".gz")
	base = strings.TrimSuffix(base, filepath.Ext(base))
	b := []byte(base)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			b[i] = '-'
		}
	}
	if len(b) > 60 {
		b = b[:60]
	}
	return string(b)
}

// openOutput creates dir if needed, checks that a file can be created in
// it, and opens the log for appending.
func openOutput(dir, logPath string) (*os.File, error) {
	if dir == "" {
		return nil, errors.New("vnncomp: no result directory given")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("vnncomp: cannot create the result directory %s: %w", dir, pathReason(err))
	}
	probe, err := os.CreateTemp(dir, ".write-test-*")
	if err != nil {
		return nil, fmt.Errorf("vnncomp: cannot write in the result directory %s: %w", dir, pathReason(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("vnncomp: cannot open the log %s: %w", logPath, pathReason(err))
	}
	return f, nil
}

// pathReason strips the operation and path from a *os.PathError, which
// the message around it already names.
func pathReason(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// runner holds what the rows of one Run share.
type runner struct {
	csv, dir string
	decide   Decider
	log      io.Writer
	logPath  string
	report   io.Writer
	scale    float64 // multiplies the rows' time limits
}

// row runs one row of the shard and records it in sum; its error is a
// failure to write the log.
func (r *runner) row(ctx context.Context, row Row, sum *Summary) error {
	if row.Err != nil {
		return r.record(row, Outcome{Result: Error, Err: row.Err}, r.writeError(row.Instance), sum)
	}
	path := filepath.Join(r.dir, ResultFile(row.Instance))
	if res, ok := earlier(path); ok {
		sum.Resumed[res]++
		fmt.Fprintf(r.report, "row %d: %s (result file from an earlier run, not run again)\n", row.Index, res)
		return nil
	}
	if err := checkFiles(row.Instance); err != nil {
		return r.record(row, Outcome{Result: Error, Err: fmt.Errorf("%s:%d: %w", r.csv, row.Line, err)}, r.writeError(row.Instance), sum)
	}
	o, limit := r.call(ctx, row.Instance)
	if ctx.Err() != nil {
		sum.Interrupted++
		fmt.Fprintf(r.report, "row %d: interrupted, nothing written\n", row.Index)
		return nil
	}
	o = Late(vet(o), limit)
	if err := atomicfile.Write(path, func(w io.Writer) error { return writeResult(w, o.Result, o.Witness) }); err != nil {
		o = Outcome{Result: Error, Err: fmt.Errorf("vnncomp: %w", err), Time: o.Time, Detail: o.Detail}
		path = ""
	}
	return r.record(row, o, path, sum)
}

// Late returns o as Timeout when it took longer than limit: a verdict
// found after the time limit does not count (VNN-COMP scores it as a
// timeout), whatever it is. Other outcomes are returned as they are.
func Late(o Outcome, limit time.Duration) Outcome {
	if o.Time <= limit || (o.Result != Sat && o.Result != Unsat) {
		return o
	}
	return Outcome{Result: Timeout, Err: fmt.Errorf("%s after %v, past the limit of %v", o.Result, o.Time.Round(time.Millisecond), limit),
		Time: o.Time, Detail: o.Detail}
}

// writeError writes the result file "error" of a row that could not run,
// so that the scorer reads a result for every row (an earlier run's error
// file does not stop a rerun from trying again).
func (r *runner) writeError(in Instance) string {
	path := filepath.Join(r.dir, ResultFile(in))
	if atomicfile.Write(path, func(w io.Writer) error { return writeResult(w, Error, nil) }) != nil {
		return ""
	}
	return path
}

// call runs the decider on in under the row's time limit (returned),
// recording the wall time of the call (the decider's own time is kept
// only when longer) and turning a panic into an Error outcome.
func (r *runner) call(ctx context.Context, in Instance) (o Outcome, limit time.Duration) {
	in.Timeout = time.Duration(float64(in.Timeout) * r.scale)
	ctx, cancel := context.WithTimeout(ctx, in.Timeout)
	defer cancel()
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			o = Outcome{Result: Error, Err: fmt.Errorf("decider: internal error: %v (a bug)", p)}
		}
		o.Time = max(o.Time, time.Since(start))
	}()
	return r.decide(ctx, in), in.Timeout
}

// earlier reads the result of an existing result file; ok is false when
// there is none. A file whose first line is not a result counts as "?".
func earlier(path string) (res Result, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	res = Result(strings.TrimSpace(line))
	if res == Error {
		return "", false // run it again
	}
	if !res.valid() {
		res = "?"
	}
	return res, true
}

// logLine is one line of the JSON-lines log.
type logLine struct {
	Schema      int             `json:"schema"`
	Index       int             `json:"index"`
	Networks    []NamedModel    `json:"networks"`
	Spec        string          `json:"spec"`
	TimeoutS    float64         `json:"timeout_seconds"`
	Result      Result          `json:"result"`
	TimeS       float64         `json:"seconds"`
	ResultFile  string          `json:"result_file,omitempty"`
	Error       string          `json:"error,omitempty"`
	Detail      json.RawMessage `json:"detail,omitempty"`
	DetailError string          `json:"detail_error,omitempty"`
}

// record logs the outcome of a row, reports it and counts it in sum.
func (r *runner) record(row Row, o Outcome, path string, sum *Summary) error {
	line := logLine{
		Schema: schema.Version, Index: row.Index, Networks: row.Networks, Spec: row.Spec,
		TimeoutS: row.Timeout.Seconds(), Result: o.Result, TimeS: o.Time.Seconds(), ResultFile: path,
	}
	if o.Err != nil {
		line.Error = o.Err.Error()
	}
	if o.Detail != nil {
		if d, err := json.Marshal(o.Detail); err != nil {
			line.DetailError = err.Error()
		} else {
			line.Detail = d
		}
	}
	b, err := json.Marshal(line)
	if err != nil {
		return fmt.Errorf("vnncomp: row %d: cannot encode the log line: %w", row.Index, err)
	}
	if _, err := r.log.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("vnncomp: cannot append to the log %s: %w", r.logPath, pathReason(err))
	}
	sum.add(o)
	msg := fmt.Sprintf("row %d: %s in %.3g s", row.Index, o.Result, o.Time.Seconds())
	if o.Err != nil {
		msg = fmt.Sprintf("row %d: %s: %v", row.Index, o.Result, o.Err)
	}
	fmt.Fprintln(r.report, msg)
	return nil
}
