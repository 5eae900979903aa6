package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestAllocateSavedHolds: allocate saves a copy with fewer weight bits
// than the single width, and compare, certifying the saved file afresh,
// finds its error within the target.
func TestAllocateSavedHolds(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "mixed.onnx")
	quick := []string{"--max-pieces", "4", "--timeout", "0", "--samples", "200"}
	var stdout, stderr bytes.Buffer
	args := append([]string{"allocate", sin3x, "--frac-bits", "6:9", "--target-error", "0.05", "--starts", "1", "--save", saved, "--json"}, quick...)
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("allocate: exit code %d: %s", code, stderr.String())
	}
	var r struct {
		TotalBits  int    `json:"total_bits"`
		SingleBits int    `json:"single_bits"`
		Saved      string `json:"saved"`
		Cert       struct {
			Certified bool    `json:"certified"`
			Bound     float64 `json:"bound"`
		} `json:"certificate"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Saved != saved || !r.Cert.Certified || r.Cert.Bound > 0.05 || r.TotalBits >= r.SingleBits {
		t.Errorf("allocate: %+v", r)
	}
	stdout.Reset()
	args = append([]string{"compare", sin3x, saved, "--json"}, quick...)
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("compare: exit code %d: %s", code, stderr.String())
	}
	var c struct {
		Certified bool    `json:"certified"`
		Bound     float64 `json:"bound"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if !c.Certified || c.Bound > 0.05 {
		t.Errorf("compare of the saved copy: certified %v, bound %v > 0.05", c.Certified, c.Bound)
	}
}

// TestAllocateUsage: a missing or bad target and bad widths are usage
// errors; an unmet target exits 1 and says so.
func TestAllocateUsage(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no target", []string{"allocate", sin3x}, exitUsage, "--target-error"},
		{"negative target", []string{"allocate", sin3x, "--target-error", "-1"}, exitUsage, "--target-error"},
		{"widths", []string{"allocate", sin3x, "--target-error", "1", "--frac-bits", "0:3"}, exitUsage, "0 fractional bits"},
		{"jobs", []string{"allocate", sin3x, "--target-error", "1", "--jobs", "0"}, exitUsage, "--jobs"},
		{"unmet", []string{"allocate", sin3x, "--target-error", "1e-9", "--frac-bits", "2,3", "--max-pieces", "1", "--timeout", "0"}, exitFail, "nothing to allocate"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stdout.String()+stderr.String(), c.want) {
			t.Errorf("%s: exit code %d, want %d; output does not say %q:\n%s%s", c.name, code, c.code, c.want, stdout.String(), stderr.String())
		}
	}
}
