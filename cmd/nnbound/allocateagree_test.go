package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestAllocateAgreement allocates the digits MLP's widths for certified
// top-1 agreement on 12 balls, then checks the saved copy without the
// search: agree, run afresh on the saved file, certifies at least the
// target and the balls the allocation claims; the copy spends at most
// the single width's weight bits (here the descent lands on the single
// width, 2 bits: TestAllocateSavedHolds checks a mixed allocation).
func TestAllocateAgreement(t *testing.T) {
	if testing.Short() {
		t.Skip("judges a dozen copies on 12 balls each")
	}
	dir := t.TempDir()
	data := digitsSubset(t, dir, 12)
	f := digitsDir + "digits_relu.onnx"
	saved := filepath.Join(dir, "mixed.onnx")
	base := []string{"allocate", f, "--data", data, "--radius", "1/255", "--frac-bits", "1:4", "--starts", "2", "--max-nodes", "30", "--workers", "2"}
	runCommandCases(t, []commandCase{
		{"both targets", append(base, "--target-agreement", "0.9", "--target-error", "1"), exitUsage, ""},
		{"rate above 1", append(base, "--target-agreement", "1.5"), exitUsage, ""},
		{"no radius", []string{"allocate", f, "--data", data, "--target-agreement", "0.9"}, exitUsage, ""},
	})
	var stdout, stderr bytes.Buffer
	args := append(base, "--target-agreement", "0.9", "--out", filepath.Join(dir, "logs"), "--save", saved, "--json")
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	var r struct {
		Samples, Agreed int
		TotalBits       int `json:"total_bits"`
		Single          struct{ Bits int }
		Layers          []struct {
			FracBits int `json:"frac_bits"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if r.Samples != 12 || r.Agreed < 11 || r.TotalBits == 0 || r.TotalBits > r.Single.Bits {
		t.Fatalf("samples %d, agreed %d, bits %d against %d single: %s", r.Samples, r.Agreed, r.TotalBits, r.Single.Bits, stdout.String())
	}
	t.Logf("widths %+v: %d bits against %d, %d of 12 balls", r.Layers, r.TotalBits, r.Single.Bits, r.Agreed)
	stdout.Reset()
	check := []string{"agree", f, saved, "--data", data, "--radius", "1/255", "--out", filepath.Join(dir, "check"), "--json"}
	run(check, &stdout, &stderr)
	var sum struct{ Samples, Agree int }
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if sum.Samples != 12 || sum.Agree < r.Agreed {
		t.Errorf("the saved copy, judged again: %d of %d balls agree, the allocation claimed %d", sum.Agree, sum.Samples, r.Agreed)
	}
}

// TestAllocateAgreementInt8 allocates int8, int4 or int3 weights per
// layer of the digits MLP for certified top-1 agreement on 12 balls and
// judges the saved copy afresh with agree: it certifies at least the
// balls the allocation claims.
func TestAllocateAgreementInt8(t *testing.T) {
	dir := t.TempDir()
	data := digitsSubset(t, dir, 12)
	f := digitsDir + "digits_relu.onnx"
	saved := filepath.Join(dir, "mixed.onnx")
	args := []string{"allocate", f, "--data", data, "--radius", "2/255", "--scheme", "int8", "--per-channel", "--bits", "3,4,8", "--starts", "1",
		"--max-nodes", "30", "--target-agreement", "0.9", "--out", filepath.Join(dir, "logs"), "--save", saved, "--json"}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	var r struct {
		Scheme          string
		Samples, Agreed int
		TotalBits       int `json:"total_bits"`
		Single          struct{ Bits int }
		Layers          []struct {
			WeightBits int `json:"weight_bits"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if r.Scheme == "" || r.Samples != 12 || r.Agreed < 11 || r.TotalBits == 0 || r.TotalBits > r.Single.Bits || r.Layers[0].WeightBits == 0 {
		t.Fatalf("scheme %q, samples %d, agreed %d, bits %d against %d single: %s", r.Scheme, r.Samples, r.Agreed, r.TotalBits, r.Single.Bits, stdout.String())
	}
	t.Logf("widths %+v: %d bits against %d, %d of 12 balls", r.Layers, r.TotalBits, r.Single.Bits, r.Agreed)
	stdout.Reset()
	check := []string{"agree", f, saved, "--data", data, "--radius", "2/255", "--max-nodes", "30", "--timeout", "0", "--out", filepath.Join(dir, "check"), "--json"}
	run(check, &stdout, &stderr)
	var sum struct{ Samples, Agree int }
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if sum.Samples != 12 || sum.Agree < r.Agreed {
		t.Errorf("the saved copy, judged again: %d of %d balls agree, the allocation claimed %d", sum.Agree, sum.Samples, r.Agreed)
	}
}
