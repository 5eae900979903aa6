package main

import (
	"bytes"
	"math"
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

// TestWideNets checks that the suites' networks are read from
// reference-results.tsv and that the MNIST ones absent from the folder are
// reported as not run.
func TestWideNets(t *testing.T) {
	dir := filepath.Dir(sharedtest.Path(t, "data", "benchmarks", "reference-results.tsv"))
	nets, err := wideNets(dir, "mnist-global")
	if err != nil {
		t.Fatal(err)
	}
	if len(nets) != 3 || nets[0] != "mnist_relu_3_100" {
		t.Fatalf("MNIST networks %v, want mnist_relu_3_100 and two others", nets)
	}
	for _, n := range nets {
		wn, err := loadWideNet(dir, "mnist-global", n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if present := wn != nil; present != (n == "mnist_relu_3_100") {
			t.Errorf("%s: loaded %v", n, present)
		}
		if wn != nil && (len(wn.insts) != 1 || wn.insts[0].Net != n || math.IsNaN(wn.insts[0].NeuroDiff)) {
			t.Errorf("%s: instances %+v", n, wn.insts)
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
