package agree

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/vnncomp"
)

// stubSamples returns n labelled samples, x = (i).
func stubSamples(n int) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = Sample{Index: i, X: []float64{float64(i)}, Label: i % 3}
	}
	return out
}

// stub decides sample i by i mod 4: agree, disagree, unknown, and for 3
// an agreement of g misclassifying; sample 7 panics. It sleeps longer for
// early samples so that they finish out of order.
func stub(calls *[]int) Decider {
	return func(ctx context.Context, s Sample) Outcome {
		time.Sleep(time.Duration(10-s.Index%10) * time.Millisecond)
		if calls != nil {
			*calls = append(*calls, s.Index) // called from one goroutine in the tests that count
		}
		i := s.Index
		if i == 7 {
			panic("seven")
		}
		o := Outcome{ClassF: i % 3, ClassG: i % 3, Nodes: 1, Time: time.Millisecond}
		switch i % 4 {
		case 0, 3:
			o.Verdict = Agree
			if i%4 == 3 {
				o.ClassG = (i + 1) % 3
			}
		case 1:
			o.Verdict, o.Witness, o.Detail = Disagree, s.X, map[string]int{"class_g": 9}
		case 2:
			o.Verdict, o.Reason = Unknown, "node limit"
		}
		return o
	}
}

func TestRunLogsInOrderAndSums(t *testing.T) {
	dir := t.TempDir()
	sum, err := Run(context.Background(), stubSamples(10), stub(nil), Options{Dir: dir, Question: "q", Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	// 0..9: agree 0 3 4 8, disagree 1 5 9, unknown 2 6, error 7
	if sum.Samples != 10 || sum.Agree != 4 || sum.Disagree != 3 || sum.Unknown != 2 || sum.Errors != 1 {
		t.Errorf("summary %+v", sum)
	}
	if sum.Labelled != 9 || sum.CorrectF != 9 || sum.CorrectG != 8 || sum.Decided != 0.7 {
		t.Errorf("accuracy: %+v", sum)
	}
	b, err := os.ReadFile(filepath.Join(dir, "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d log lines, want 10", len(lines))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, `{"schema":1,"index":`+string(rune('0'+i))+",") {
			t.Errorf("line %d: %s", i, l)
		}
	}
	if !strings.Contains(lines[7], `"verdict":"error"`) || !strings.Contains(lines[7], "seven") {
		t.Errorf("the panic: %s", lines[7])
	}
	var out bytes.Buffer
	if err := sum.WriteTable(&out); err != nil || !strings.Contains(out.String(), "decided    70.0 %") {
		t.Errorf("table: %v\n%s", err, out.String())
	}
}

func TestRunResumesAndShards(t *testing.T) {
	dir := t.TempDir()
	var calls []int
	for k := range 2 {
		_, err := Run(context.Background(), stubSamples(10), stub(&calls), Options{Dir: dir, Question: "q", Shard: vnncomp.Shard{K: k, N: 2}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(calls) != 10 {
		t.Fatalf("the shards decided %v", calls)
	}
	calls = nil
	sum, err := Run(context.Background(), stubSamples(10), stub(&calls), Options{Dir: dir, Question: "q", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0] != 7 || sum.Resumed != 9 || sum.Samples != 10 {
		t.Errorf("rerun decided %v (want only the error, 7), summary %+v", calls, sum)
	}
	if _, err := Run(context.Background(), stubSamples(10), stub(nil), Options{Dir: dir, Question: "other"}); err == nil || !strings.Contains(err.Error(), "another question") {
		t.Errorf("another question: %v", err)
	}
}

func TestRunInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	first := true
	decide := func(ctx context.Context, s Sample) Outcome {
		if s.Index == 2 && first {
			first = false
			cancel()
			<-ctx.Done()
		}
		return Outcome{Verdict: Agree}
	}
	sum, err := Run(ctx, stubSamples(5), decide, Options{Dir: dir, Question: "q", Workers: 1})
	if err != context.Canceled || sum.Samples != 2 || sum.Interrupted != 3 {
		t.Fatalf("%v, %+v", err, sum)
	}
	sum, err = Run(context.Background(), stubSamples(5), decide, Options{Dir: dir, Question: "q", Workers: 1})
	if err != nil || sum.Resumed != 2 || sum.Agree != 5 {
		t.Errorf("resumed: %v, %+v", err, sum)
	}
}

// TestSummaryUnlabelled checks that a summary without labelled samples
// does not claim the data has no labels: an interrupted run counts none
// of its labelled samples.
func TestSummaryUnlabelled(t *testing.T) {
	var b bytes.Buffer
	s := &Summary{Question: "q", Shard: "0/1", Interrupted: 5}
	if err := s.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "accuracy   none (no labelled sample counted)\n") {
		t.Errorf("summary:\n%s", b.String())
	}
}
