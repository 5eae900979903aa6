package agree

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/internal/parallel"
	"github.com/nnbound/nnbound/vnncomp"
)

// Verdict is how the ball about one sample ended.
type Verdict string

// The verdicts.
const (
	// Agree: both networks pick the same class at every input of the
	// ball (certified).
	Agree Verdict = "agree"
	// Disagree: an input of the ball where they pick different classes,
	// re-evaluated by the decider.
	Disagree Verdict = "disagree"
	// Unknown: neither, within the decider's limits.
	Unknown Verdict = "unknown"
	// Error: the sample could not be decided (Outcome.Reason says why); a
	// rerun tries it again.
	Error Verdict = "error"
)

// Outcome is what a Decider reports for one sample.
type Outcome struct {
	Verdict Verdict
	// ClassF and ClassG are the networks' classes at the sample itself.
	ClassF, ClassG int
	// Witness is, with Disagree, the input where the classes differ.
	Witness []float64
	// Reason says why the verdict is Unknown or Error.
	Reason string
	// Nodes counts the boxes the decider bounded.
	Nodes int
	// Time is the time taken; 0 lets Run measure it.
	Time time.Duration
	// Detail is anything for the log (the re-evaluated witness): it is
	// marshalled to JSON.
	Detail any
}

// Decider decides the ball about one sample. It must return when ctx is
// done (ctx carries Options.Timeout), and must re-evaluate the witness of
// a disagreement on the networks themselves.
type Decider func(ctx context.Context, s Sample) Outcome

// Options are the settings of Run; the question itself is the decider's.
type Options struct {
	// Dir receives the JSON-lines log (vnncomp.LogFile of the shard),
	// created if missing; every log in it is read first, so that a rerun
	// skips the samples already decided, by any shard.
	Dir string
	// Question names what is asked (the networks, the radius): it is
	// written on every log line, and a log line of another question in
	// Dir is an error.
	Question string
	// Shard selects the samples i with i mod N == K; the zero Shard means
	// vnncomp.All.
	Shard vnncomp.Shard
	// Workers is the number of samples decided at once (0: GOMAXPROCS).
	Workers int
	// Timeout limits each sample's decision (0: none).
	Timeout time.Duration
	// Report receives one line per sample as it is logged; nil for none.
	Report io.Writer
}

// Run decides the samples of opts.Shard that no log in opts.Dir holds,
// opts.Workers at a time, and appends their records to the shard's log
// in sample order, whatever the scheduling (each with a single write).
// It returns the summary of every sample of the shard, those of earlier
// runs included. When ctx is done it starts no further sample, logs the
// finished ones, drops the interrupted ones (a rerun decides them) and
// returns the summary so far with ctx.Err(). A panic in decide is an
// Error record for its sample.
func Run(ctx context.Context, samples []Sample, decide Decider, opts Options) (*Summary, error) {
	start, cpu0 := time.Now(), cputime.Process()
	if opts.Shard.N == 0 {
		opts.Shard = vnncomp.All
	}
	if err := opts.Shard.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("agree: %w", err)
	}
	done, err := readLogs(opts.Dir, opts.Question)
	if err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(opts.Dir, vnncomp.LogFile(opts.Shard)), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("agree: %w", err)
	}
	defer logf.Close()
	sum := &Summary{Question: opts.Question, Shard: opts.Shard.String()}
	var todo []Sample
	for _, s := range samples {
		if !opts.Shard.Has(s.Index) {
			continue
		}
		if r, ok := done[s.Index]; ok && r.Verdict != Error {
			sum.Resumed++
			sum.add(r)
			continue
		}
		todo = append(todo, s)
	}
	recs := make([]*Record, len(todo))
	ready := make(chan int)
	go decideAll(ctx, todo, decide, opts, recs, ready)
	got, next := make([]bool, len(todo)), 0
	for i := range ready {
		got[i] = true
		for ; next < len(recs) && got[next] && recs[next] != nil; next++ {
			if err := sum.log(logf, opts.Report, *recs[next]); err != nil {
				go func() { // let the workers finish
					for range ready {
					}
				}()
				return sum.finish(start, cpu0), err
			}
		}
	}
	for _, r := range recs[next:] { // after an interruption
		if r == nil {
			sum.Interrupted++
		} else if err := sum.log(logf, opts.Report, *r); err != nil {
			return sum.finish(start, cpu0), err
		}
	}
	return sum.finish(start, cpu0), ctx.Err()
}

// decideAll decides todo on opts.Workers goroutines, storing record i in
// recs[i] (nil when interrupted) and sending i on ready; it closes ready
// at the end.
func decideAll(ctx context.Context, todo []Sample, decide Decider, opts Options, recs []*Record, ready chan<- int) {
	workers := opts.Workers
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	parallel.For(ctx, len(todo), workers, func(i int) {
		o := call(ctx, decide, todo[i], opts.Timeout)
		if ctx.Err() == nil {
			recs[i] = record(todo[i], o, opts.Question)
		}
		ready <- i
	})
	close(ready)
}

// call runs decide on s under the time limit, measuring the time when
// the decider does not report it and turning a panic into an Error.
func call(ctx context.Context, decide Decider, s Sample, limit time.Duration) (o Outcome) {
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			o = Outcome{Verdict: Error, Reason: fmt.Sprintf("decider: internal error: %v (a bug)", p)}
		}
		if o.Time <= 0 {
			o.Time = time.Since(start)
		}
	}()
	return decide(ctx, s)
}
