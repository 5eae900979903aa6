package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAllocateSavedHolds: allocate saves a copy with fewer weight bits
// than the single width the sweep finds for the same target, and compare,
// certifying the saved file afresh, finds its error within the target:
// on sin3x with fixed-point and with int2-int8 weights per layer
// (--scheme int8), and with NNBOUND_LONG=1 on the digits MLP over
// [0, 1]^64, fixed point (about ten certifications of 5 s of CPU) and
// int4/int8 (root SDPs of the int8 copies, about 100 s of CPU).
// sin3xInt8 is the quick int8 allocation of sin3x: the "sin3x int8" case
// of TestAllocateSavedHolds, and TestReadmeTwice's stand-in for the
// README's int8 allocation of the digits MLP.
var sin3xInt8 = struct {
	widths []string // the scheme and its widths
	pieces string   // --max-pieces
	target float64  // --target-error
}{[]string{"--scheme", "int8", "--per-channel", "--bits", "2:8"}, "64", 0.2}

func TestAllocateSavedHolds(t *testing.T) {
	for _, tc := range []struct {
		name, model, box string
		widths           []string
		pieces           string // --max-pieces, when not the quick default
		target           float64
		long             bool
	}{
		{"sin3x", sin3x, "", []string{"--frac-bits", "6:9"}, "", 0.05, false},
		{"digits", digitsDir + "digits_relu.onnx", "0:1", []string{"--frac-bits", "8:10"}, "", 1.5, true},
		{"sin3x int8", sin3x, "", sin3xInt8.widths, sin3xInt8.pieces, sin3xInt8.target, false},
		{"digits int8", digitsDir + "digits_relu.onnx", "0:1", []string{"--scheme", "int8", "--per-channel"}, "", 50, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && os.Getenv("NNBOUND_LONG") == "" {
				t.Skip("NNBOUND_LONG=1 runs it")
			}
			saved := filepath.Join(t.TempDir(), "mixed.onnx")
			quick := []string{"--max-pieces", "4", "--timeout", "0", "--samples", "200"}
			if tc.box != "" {
				quick = append(quick, "--box", tc.box, "--max-pieces", "1")
			}
			if tc.pieces != "" {
				quick = append(quick, "--max-pieces", tc.pieces)
			}
			target := fmt.Sprint(tc.target)
			var stdout, stderr bytes.Buffer
			args := append([]string{"allocate", tc.model, "--target-error", target, "--starts", "1", "--save", saved, "--json"}, quick...)
			args = append(args, tc.widths...)
			if code := run(args, &stdout, &stderr); code != exitOK {
				t.Fatalf("allocate: exit code %d: %s", code, stderr.String())
			}
			var r struct {
				Layers []struct {
					WeightBits int `json:"weight_bits"`
				} `json:"layers"`
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
			if r.Saved != saved || !r.Cert.Certified || r.Cert.Bound > tc.target || r.TotalBits >= r.SingleBits {
				t.Errorf("allocate: %+v", r)
			}
			t.Logf("%d weight bits against %d at the single width, bound %v, layers %+v", r.TotalBits, r.SingleBits, r.Cert.Bound, r.Layers)
			stdout.Reset()
			args = append([]string{"compare", tc.model, saved, "--json"}, quick...)
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
			if !c.Certified || c.Bound > tc.target {
				t.Errorf("compare of the saved copy: certified %v, bound %v > %v", c.Certified, c.Bound, tc.target)
			}
		})
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
		{"scheme", []string{"allocate", sin3x, "--target-error", "1", "--scheme", "int9"}, exitUsage, "--scheme"},
		{"int8 bits", []string{"allocate", sin3x, "--target-error", "1", "--scheme", "int8", "--bits", "1,8"}, exitUsage, "--bits"},
		{"int8 frac-bits", []string{"allocate", sin3x, "--target-error", "1", "--scheme", "int8", "--frac-bits", "4"}, exitUsage, "--frac-bits"},
		{"report agreement", []string{"allocate", sin3x, "--target-agreement", "0.9", "--report", "x", "--data", "x.json", "--radius", "0.1"}, exitUsage, "--report"},
		{"unmet", []string{"allocate", sin3x, "--target-error", "1e-9", "--frac-bits", "2,3", "--max-pieces", "1", "--timeout", "0"}, exitFail, "nothing to allocate"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stdout.String()+stderr.String(), c.want) {
			t.Errorf("%s: exit code %d, want %d; output does not say %q:\n%s%s", c.name, code, c.code, c.want, stdout.String(), stderr.String())
		}
	}
}

// TestAllocateReportInBrowser writes the page of an int8 allocation of
// sin3x (the search of TestAllocateSavedHolds's sin3x int8 case), checks
// its text and loads it in a headless Chromium (skipped when none is
// installed), checking the page it renders.
func TestAllocateReportInBrowser(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page")
	args := []string{"allocate", sin3x, "--scheme", "int8", "--per-channel", "--bits", "2:8", "--target-error", "0.2",
		"--starts", "1", "--max-pieces", "64", "--timeout", "0", "--samples", "200", "--report", page}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(page, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "<script") {
		t.Error("the page has a script")
	}
	checkAllocationPage(t, "file", string(b))
	checkAllocationPage(t, "chromium's DOM", headlessDOM(t, filepath.Join(page, "index.html")))
}

// checkAllocationPage checks the content of the page of
// TestAllocateReportInBrowser.
func checkAllocationPage(t *testing.T, what, html string) {
	t.Helper()
	for _, want := range []string{
		`<table id="sweep">`, `<th>width</th>`, `<table id="layers">`, `<th>weight bits</th>`, `<td>total</td>`,
		`<svg id="bits"`, `<pre id="certificate">`, `certified       yes`, `nnbound allocate `, `--scheme=int8`,
		`sin3x_relu.onnx</td><td>SHA-256 `,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("%s: no %q in the page", what, want)
		}
	}
}
