package vnncomp

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// Summary counts the rows of one Run.
type Summary struct {
	Shard       Shard
	Rows        int            // records in the instances file
	Mine        int            // rows of the shard
	Counts      map[Result]int // outcomes of the rows run now
	Resumed     map[Result]int // rows with a result file from an earlier run, by its result ("?" if unreadable)
	Interrupted int            // rows of the shard not run, or discarded, because the run was cancelled
	Time        time.Duration  // sum of the times of the rows run now
}

func newSummary(s Shard, rows int) *Summary {
	return &Summary{Shard: s, Rows: rows, Counts: map[Result]int{}, Resumed: map[Result]int{}}
}

// add counts one outcome.
func (s *Summary) add(o Outcome) {
	s.Counts[o.Result]++
	s.Time += o.Time
}

// Failed reports whether a row of this run ended in Error.
func (s *Summary) Failed() bool { return s.Counts[Error] > 0 }

// Err returns nil, or, when rows of this run ended in Error, an error
// counting them and naming the log in the result directory dir that says
// why: "vnncomp: 2 rows ended in error (the log out/log.jsonl says why)".
func (s *Summary) Err(dir string) error {
	if !s.Failed() {
		return nil
	}
	n, rows := s.Counts[Error], "rows"
	if n == 1 {
		rows = "row"
	}
	return fmt.Errorf("vnncomp: %d %s ended in error (the log %s says why)",
		n, rows, filepath.Join(dir, LogFile(s.Shard)))
}

// WriteTable prints the summary as a table, results in a fixed order:
//
//	result   this run  earlier runs
//	unsat           3             1
//	...
//	total           5             1
//	shard 0/2: 6 of 11 rows; 12.3 s in the rows run now
func (s *Summary) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %9s %13s\n", "result", "this run", "earlier runs")
	run, resumed := 0, 0
	keys := append([]Result{}, results...)
	if s.Resumed["?"] > 0 {
		keys = append(keys, "?")
	}
	for _, r := range keys {
		fmt.Fprintf(&b, "%-7s %9d %13d\n", r, s.Counts[r], s.Resumed[r])
		run += s.Counts[r]
		resumed += s.Resumed[r]
	}
	fmt.Fprintf(&b, "%-7s %9d %13d\n", "total", run, resumed)
	fmt.Fprintf(&b, "shard %s: %d of %d rows; %.1f s in the rows run now\n", s.Shard, s.Mine, s.Rows, s.Time.Seconds())
	if s.Interrupted > 0 {
		fmt.Fprintf(&b, "interrupted: %d rows not run (run again to resume)\n", s.Interrupted)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// summaryJSON is the JSON encoding of a Summary.
type summaryJSON struct {
	Shard       string         `json:"shard"`
	Rows        int            `json:"rows"`
	Mine        int            `json:"shard_rows"`
	ThisRun     map[Result]int `json:"this_run"`
	EarlierRuns map[Result]int `json:"earlier_runs"`
	Interrupted int            `json:"interrupted"`
	Seconds     float64        `json:"seconds"`
}

// MarshalJSON encodes the summary as one object with the numbers of
// WriteTable, every result counted (0 included; "?" among the earlier
// runs only when some result file was unreadable):
//
//	{"shard": "0/2", "rows": 11, "shard_rows": 6,
//	 "this_run": {"error": 0, "sat": 1, "timeout": 0, "unknown": 0, "unsat": 3},
//	 "earlier_runs": {...}, "interrupted": 0, "seconds": 12.3}
func (s *Summary) MarshalJSON() ([]byte, error) {
	j := summaryJSON{Shard: s.Shard.String(), Rows: s.Rows, Mine: s.Mine, ThisRun: map[Result]int{}, EarlierRuns: map[Result]int{},
		Interrupted: s.Interrupted, Seconds: s.Time.Seconds()}
	for _, r := range results {
		j.ThisRun[r], j.EarlierRuns[r] = s.Counts[r], s.Resumed[r]
	}
	if n := s.Resumed["?"]; n > 0 {
		j.EarlierRuns["?"] = n
	}
	return json.Marshal(j)
}
