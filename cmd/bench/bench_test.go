package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/internal/suite"
)

// TestRunCSDP runs the command end to end with csdp alone on a tiny
// problem the repository owns.
func TestRunCSDP(t *testing.T) {
	if _, err := exec.LookPath("csdp"); err != nil {
		t.Skip("csdp not installed")
	}
	file := filepath.Join("..", "nnbound", "testdata", "solve", "maxeig.dat-s")
	var stdout, stderr bytes.Buffer
	code := run([]string{"sdplib", "--solvers", "csdp", "--runs", "2", file}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "| maxeig | 1 | 2 | — |") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "[1/1] maxeig  csdp ") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{
		{"sdplib", "--runs", "0", "x.dat-s"},
		{"sdplib", "--timeout", "0s", "x.dat-s"},
		{"sdplib", "--timeout", "0", "x.dat-s"}, // a bare number is seconds
		{"sdplib", "--timeout", "ten", "x.dat-s"},
		{"sdplib", "--solvers", "mosek", "x.dat-s"},
		{"sdplib", "--bogus"},
		{"nosuch"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit code %d, want 2 (stderr %q)", args, code, stderr.String())
		}
		if strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line", args, stderr.String())
		}
	}
}

// TestRunACASXu runs the command on one instance (the default method,
// best: bound propagation and the SDP) and checks the JSON and the
// Markdown file it writes.
func TestRunACASXu(t *testing.T) {
	sharedtest.Path(t, "data", "benchmarks", "properties.json")
	out := filepath.Join(t.TempDir(), "acas.md")
	var stdout, stderr bytes.Buffer
	code := run([]string{"acasxu", "--props", "3", "--nets", "2_9", "--search-time", "1s", "--json", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	var res struct {
		Instances []struct {
			Prop, Net, Status, Method, Soundness string
			Bound, Found                         float64
			Unstable                             []int `json:"unstable_f"`
			Interval, SDP                        *struct{ Bound float64 }
		} `json:"instances"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if len(res.Instances) != 1 {
		t.Fatalf("%d instances, want 1", len(res.Instances))
	}
	r := res.Instances[0]
	if r.Prop != "3" || r.Net != "2_9" || r.Status != "certified" || r.Soundness != "ok" ||
		!(r.Found > 0 && r.Bound >= r.Found) || len(r.Unstable) != 7 || r.Interval == nil || r.SDP == nil ||
		r.Bound > r.Interval.Bound {
		t.Errorf("instance %+v", r)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| 2_9 |") || !strings.Contains(stderr.String(), "[1/1] property 3 net 2_9: bound ") {
		t.Errorf("Markdown:\n%s\nstderr:\n%s", md, stderr.String())
	}
}

func TestRunACASXuUsage(t *testing.T) {
	for _, tt := range []struct {
		args     []string
		code     int
		withData bool
	}{
		{[]string{"acasxu", "--method", "exact"}, 2, false},
		{[]string{"acasxu", "--timeout", "0s"}, 2, false},
		{[]string{"acasxu", "--solver", "mosek"}, 2, false},
		{[]string{"acasxu", "--bounds", "exact"}, 2, false},
		{[]string{"acasxu", "--pieces", "0"}, 2, false},
		{[]string{"acasxu", "--out", filepath.Join("no", "such", "dir", "x.md")}, 2, false},
		{[]string{"acasxu", "--data", t.TempDir()}, 1, false},
		{[]string{"acasxu", "--props", "99"}, 2, true},
		{[]string{"acasxu", "--props", "3", "--nets", "1_7"}, 2, true},
	} {
		if tt.withData {
			sharedtest.Path(t, "data", "benchmarks", "properties.json")
		}
		var stdout, stderr bytes.Buffer
		if code := run(tt.args, &stdout, &stderr); code != tt.code {
			t.Errorf("%v: exit code %d, want %d (stderr %q)", tt.args, code, tt.code, stderr.String())
		}
		if strings.Count(stderr.String(), "\n") != 1 || stdout.Len() != 0 {
			t.Errorf("%v: stderr %q, stdout %q; want one line on stderr", tt.args, stderr.String(), stdout.String())
		}
	}
}

// TestRunACASXuNoData checks that the command does nothing, successfully,
// without the shared folder.
func TestRunACASXuNoData(t *testing.T) {
	t.Setenv("NNBOUND_SHARED", filepath.Join(t.TempDir(), "absent"))
	var stdout, stderr bytes.Buffer
	if code := run([]string{"acasxu"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "nothing to do") {
		t.Errorf("exit code %d, stderr %q", code, stderr.String())
	}
}

// TestEnumFlag checks that an enum flag takes each value by name and
// rejects others, naming the values.
func TestEnumFlag(t *testing.T) {
	m := suite.ACASBest
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	enumVar(fs, &m, "method", suite.ACASMethods, "")
	for _, want := range suite.ACASMethods {
		if err := fs.Set("method", want.String()); err != nil || m != want {
			t.Errorf("--method %v: got %v, %v", want, m, err)
		}
	}
	if err := fs.Set("method", "exact"); err == nil || !strings.Contains(err.Error(), "interval, sdp, best") {
		t.Errorf("--method exact: error %v", err)
	}
}

// TestCNNCommand runs bench cnn on one image and width (the error search
// takes some 5,000 evaluations of the pair).
func TestCNNCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("the error search of bench cnn is long for -short")
	}
	var out, errOut bytes.Buffer
	model := filepath.Join("..", "..", "nn", "onnx", "testdata", "cnn", "cnn_digits", "cnn_digits.onnx")
	code := run([]string{"cnn", "--model", model, "--images", "1", "--frac-bits", "8", "--evals", "50",
		"--bounds", "interval"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"Conv 1x8x8 -> 8x8x8 (512 x 64)", "FB  image", "peak resident memory"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
