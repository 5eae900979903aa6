package agree

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/nnbound/nnbound/internal/schema"
)

// Record is one line of the log: a sample's verdict.
type Record struct {
	// Schema is the version of the record's fields (schema.Version).
	Schema   int    `json:"schema"`
	Index    int    `json:"index"`
	Question string `json:"question"`
	// Label is the sample's label, -1 when the set has none.
	Label   int     `json:"label"`
	ClassF  int     `json:"class_f"`
	ClassG  int     `json:"class_g"`
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
	// Witness is the input of a disagreement.
	Witness []float64       `json:"witness,omitempty"`
	Nodes   int             `json:"nodes"`
	Seconds float64         `json:"seconds"`
	Detail  json.RawMessage `json:"detail,omitempty"`
}

// record returns the record of sample s's outcome o.
func record(s Sample, o Outcome, question string) *Record {
	r := &Record{Schema: schema.Version, Index: s.Index, Question: question, Label: s.Label, ClassF: o.ClassF, ClassG: o.ClassG,
		Verdict: o.Verdict, Reason: o.Reason, Witness: o.Witness, Nodes: o.Nodes, Seconds: o.Time.Seconds()}
	switch o.Verdict {
	case Agree, Unknown, Error:
	case Disagree:
		if o.Witness == nil {
			r.Verdict, r.Reason = Error, "decider: a disagreement without its input (a bug)"
		}
	default:
		r.Verdict, r.Reason = Error, fmt.Sprintf("decider: verdict %q unknown (a bug)", o.Verdict)
	}
	if o.Detail != nil {
		b, err := json.Marshal(o.Detail)
		if err != nil {
			r.Verdict, r.Reason = Error, fmt.Sprintf("decider: detail: %v", err)
		} else {
			r.Detail = b
		}
	}
	return r
}

// readLogs reads every log (*.jsonl) in dir and returns, per sample, its
// last record. A line of another question is an error; a line that does
// not parse (cut short by a crash) is skipped.
func readLogs(dir, question string) (map[int]Record, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("agree: %w", err)
	}
	sort.Strings(paths)
	out := map[int]Record{}
	for _, p := range paths {
		if err := readLog(p, question, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readLog adds the records of the log at path to out.
func readLog(path, question string, out map[int]Record) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("agree: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for line := 1; sc.Scan(); line++ {
		var r Record
		if len(bytes.TrimSpace(sc.Bytes())) == 0 || json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		if r.Question != question {
			return fmt.Errorf("agree: %s:%d is a record of another question (%s, not %s): write to another folder", path, line, r.Question, question)
		}
		out[r.Index] = r
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("agree: %s: %w", path, err)
	}
	return nil
}

// writeRecord writes r to w as one JSON line, with a single write.
func writeRecord(w io.Writer, r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("agree: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("agree: writing the log: %w", err)
	}
	return nil
}
