package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
)

func TestVerifyUsage(t *testing.T) {
	for _, args := range [][]string{
		{"verify", "--suite", "mnist", "--data", "."},
		{"verify", "--eps", "0"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}

// TestVerifyACAS decides one easy ACAS Xu float16 instance (property 4,
// net 1_2: proved at the root) and checks the table's row.
func TestVerifyACAS(t *testing.T) {
	dir := filepath.Dir(sharedtest.Path(t, "data", "benchmarks", "properties.json"))
	var out, errOut bytes.Buffer
	code := run([]string{"verify", "--suite", "acasxu", "--props", "4", "--nets", "1_2", "--data", dir}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "| prop 4 net 1_2 | holds |") || !strings.Contains(out.String(), "| proved |") {
		t.Errorf("table:\n%s", out.String())
	}
}
