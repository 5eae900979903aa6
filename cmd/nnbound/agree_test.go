package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// digitsSubset writes the first n test images of the digits set, with
// their labels, to dir and returns the file's path.
func digitsSubset(t *testing.T, dir string, n int) string {
	t.Helper()
	b, err := os.ReadFile(digitsDir + "test_set.json")
	if err != nil {
		t.Fatal(err)
	}
	var ts struct {
		Inputs [][]float64 `json:"inputs"`
		Labels []int       `json:"labels"`
	}
	if err := json.Unmarshal(b, &ts); err != nil {
		t.Fatal(err)
	}
	ts.Inputs, ts.Labels = ts.Inputs[:n], ts.Labels[:n]
	if b, err = json.Marshal(ts); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "subset.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAgreeCommand(t *testing.T) {
	dir := t.TempDir()
	data := digitsSubset(t, dir, 6)
	f, g := digitsDir+"digits_relu.onnx", digitsDir+"digits_relu_int8_perchannel.onnx"
	out := filepath.Join(dir, "out")
	base := []string{"agree", f, g, "--data", data, "--out", out}
	tests := []commandCase{
		{"no data", []string{"agree", f, g, "--radius", "0.01"}, exitUsage, ""},
		{"no radius", []string{"agree", f, g, "--data", data}, exitUsage, ""},
		{"bad radius", append(base, "--radius", "1/0"), exitUsage, ""},
		{"negative radius", append(base, "--radius", "-1"), exitUsage, ""},
		{"bad domain", append(base, "--radius", "0.01", "--domain", "1"), exitUsage, ""},
		{"bad shard", append(base, "--radius", "0.01", "--shard", "2/2"), exitUsage, ""},
		{"shard 1/2", append(base, "--radius", "1/255", "--shard", "1/2"), exitOK, "samples    3 (shard 1/2; 0 from earlier runs)"},
		{"the rest, resumed", append(base, "--radius", "1/255"), exitOK, "samples    6 (shard 0/1; 3 from earlier runs)"},
		{"another radius, same folder", append(base, "--radius", "2/255"), exitFail, ""},
		{"disagreement", []string{"agree", f, g, "--data", data, "--out", filepath.Join(dir, "wide"), "--radius", "0.5"}, exitFail, "disagree   "},
	}
	runCommandCases(t, tests)
	var stdout, stderr bytes.Buffer
	if code := run(append(base, "--radius", "1/255", "--json"), &stdout, &stderr); code != exitOK {
		t.Fatalf("--json: exit %d, stderr %q", code, stderr.String())
	}
	var sum struct {
		Samples, Agree, Resumed int
		AccuracyF               float64 `json:"accuracy_f"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("--json: %v: %s", err, stdout.String())
	}
	if sum.Samples != 6 || sum.Agree != 6 || sum.Resumed != 6 || sum.AccuracyF != 1 {
		t.Errorf("--json: %+v", sum)
	}
}
