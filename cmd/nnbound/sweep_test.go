package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn/modelfile"
)

// TestSweepSaveBest: --save-best writes the copy at the smallest width
// that meets the target, and says so.
func TestSweepSaveBest(t *testing.T) {
	best := filepath.Join(t.TempDir(), "best.json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"sweep", sin3x, "--frac-bits", "2:6", "--target-error", "0.5", "--max-pieces", "1",
		"--timeout", "0", "--plot", "", "--save-best", best}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "saved: "+best) {
		t.Errorf("stdout does not name the saved copy:\n%s", stdout.String())
	}
	if _, _, err := modelfile.Load(best, modelfile.Options{}); err != nil {
		t.Errorf("saved copy: %v", err)
	}
}
