package experiment

import (
	"bytes"
	"testing"
)

// TestExportRecordText pins the summary nnbound export prints.
func TestExportRecordText(t *testing.T) {
	r := ExportRecord{File: "a.dat-s", Format: "sdpa", Networks: "m.onnx against m2.onnx", Variables: 40, LMIOrder: 12,
		Input: InputRecord{Lo: []float64{-1}, Hi: []float64{1}}, Where: "gamma = y1"}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := "wrote a.dat-s (sdpa): the SDP of m.onnx against m2.onnx\n  40 variables, LMI of order 12, [-1, 1]\n  gammas: gamma = y1\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
