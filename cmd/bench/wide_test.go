package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
)

// TestRunWide bounds the first two instances of each suite: all proved,
// and no bound below the data's attained difference or the one our search
// finds (exit code 0).
func TestRunWide(t *testing.T) {
	sharedtest.Path(t, "data", "benchmarks", "har", "har_tests.json")
	for _, suite := range []string{"har", "mnist-global", "mnist-3pix"} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"wide", "--suite", suite, "--limit", "2", "--search", "500"}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit code %d: %s", suite, code, stderr.String())
		}
		if out := stdout.String(); !strings.Contains(out, "| proved | 2/2 | 2/2 |") || !strings.Contains(out, "found by our search (500 evaluations)") {
			t.Errorf("%s: not all proved, or no search:\n%s", suite, out)
		}
	}
}

func TestRunWideUsage(t *testing.T) {
	for _, args := range [][]string{{"wide", "--suite", "cifar"}, {"wide", "--bounds", "exact"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit code %d, want 2 (stderr %q)", args, code, stderr.String())
		}
	}
}

func TestRunWideNoData(t *testing.T) {
	t.Setenv("NNBOUND_SHARED", filepath.Join(t.TempDir(), "absent"))
	var stdout, stderr bytes.Buffer
	if code := run([]string{"wide"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "nothing to do") {
		t.Errorf("exit code %d, stderr %q", code, stderr.String())
	}
}
