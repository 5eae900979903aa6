package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// commandCase is a command line, the exit status it must end with and
// a text its standard output must hold.
type commandCase struct {
	name string
	args []string
	code int
	want string
}

// runCommandCases runs every case and reports those that fail.
func runCommandCases(t *testing.T, tests []commandCase) {
	t.Helper()
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q", tc.name, code, tc.code, stdout.String(), stderr.String())
		}
	}
}

// digitsDir holds the digits MLP and its int8 copies.
const digitsDir = "../../nn/onnx/testdata/qdq/digits_relu/"

func TestVerifyTop1Command(t *testing.T) {
	f, g := digitsDir+"digits_relu.onnx", digitsDir+"digits_relu_int8_perchannel.onnx"
	// the first test image, pixels/16, +- 1/255 clipped to [0, 1]
	x := []float64{0, 0, 7, 16, 14, 3, 0, 0, 0, 0, 9, 14, 11, 15, 0, 0, 0, 0, 1, 5, 0, 15, 5, 0, 0, 0, 0, 0, 0, 16, 5, 0,
		0, 0, 0, 0, 3, 16, 4, 0, 0, 0, 0, 1, 12, 14, 1, 0, 0, 0, 5, 12, 16, 16, 14, 1, 0, 0, 8, 16, 14, 10, 13, 3}
	var lo, hi []string
	for _, v := range x {
		lo = append(lo, strconv.FormatFloat(max(0, v/16-1.0/255), 'g', -1, 64))
		hi = append(hi, strconv.FormatFloat(min(1, v/16+1.0/255), 'g', -1, 64))
	}
	ball := []string{"--lo", strings.Join(lo, ","), "--hi", strings.Join(hi, ",")}
	tests := []commandCase{
		{"agrees on a small ball", append([]string{"verify", f, g, "--property", "top1"}, ball...), exitOK, "verdict   holds"},
		{"disagrees on the cube", []string{"verify", f, g, "--property", "top1", "--box", "0:1"}, exitFail, "verdict   violated"},
		{"epsilon", []string{"verify", f, g, "--property", "top1", "--epsilon", "1"}, exitUsage, ""},
		{"unknown property", []string{"verify", f, g, "--property", "top5"}, exitUsage, ""},
	}
	runCommandCases(t, tests)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"verify", f, g, "--property", "top1", "--box", "0:1", "--json"}, &stdout, &stderr); code != exitFail {
		t.Fatalf("--json: exit %d, stderr %q", code, stderr.String())
	}
	var res struct {
		Verdict        string
		Counterexample struct {
			X      []float64
			ClassF int `json:"class_f"`
			ClassG int `json:"class_g"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("--json: %v: %s", err, stdout.String())
	}
	if res.Verdict != "violated" || len(res.Counterexample.X) != 64 || res.Counterexample.ClassF == res.Counterexample.ClassG {
		t.Errorf("--json: %+v", res)
	}
}
