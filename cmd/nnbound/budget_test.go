package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// leakyONNX is a 2-24-24-24-1 leaky-ReLU network (testdata/leaky/gen.py).
const leakyONNX = "testdata/leaky/leakyrelu_3x24.onnx"

// TestTimeBudgetStopsPaperSDP: with the paper's QC set, the SDP of a
// 2-24-24-24-1 leaky-ReLU network has over 10,000 variables; one solver
// iteration takes minutes and more than a gigabyte. The time budget must
// stop it (the bound then comes from bound propagation, and the
// certificate says the budget ran out). The budget is 1 ms, which no
// machine meets however idle, so the outcome does not depend on the
// machine's load; the elapsed time is logged, not checked.
func TestTimeBudgetStopsPaperSDP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large SDP")
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run([]string{"prune", leakyONNX, "--neurons", "7", "--certify", "--lo", "0,-1", "--hi", "0,1",
		"--pairing", "independent", "--qc", "paper", "--timeout", "1ms", "--json"}, &stdout, &stderr)
	t.Logf("returned after %v with a 1 ms budget", time.Since(start))
	if code != exitOK {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	var got struct {
		Certified     bool   `json:"certified"`
		Source        string `json:"source"`
		TimeBudgetHit bool   `json:"time_budget_hit"`
		Reason        string `json:"reason"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !got.Certified || !got.TimeBudgetHit || got.Source != "interval" {
		t.Errorf("got %+v, want a certified interval bound with time_budget_hit", got)
	}
}
