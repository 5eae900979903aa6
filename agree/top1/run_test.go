package top1

import (
	"context"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/agree"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
)

func TestQuestionOn(t *testing.T) {
	q := Question{Radius: 0.5, Lo: 0, Hi: 1}
	files := []agree.File{{Name: "a.onnx", SHA256: "00"}, {Name: "test.json", SHA256: "11"}}
	want := "on test.json, L-inf radius 0.5 in [0, 1] (inputs " + agree.InputsDigest(files) + ")"
	if got := q.On("data/test.json", files); got != want {
		t.Errorf("On = %q, want %q", got, want)
	}
}

// TestRunOutsideDomain checks that a sample farther than the radius
// outside the domain (an unscaled test set) is an error naming it, not a
// verdict about the domain's nearest end.
func TestRunOutsideDomain(t *testing.T) {
	f, g := digitsPair(t)
	x := make([]float64, 64)
	x[3] = 16
	q := Question{Radius: 0.5, Lo: 0, Hi: 1}
	_, err := Run(context.Background(), f, g, q, 1, []agree.Sample{{Index: 7, X: x}}, agree.Options{Dir: t.TempDir(), Question: "test", Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "sample 7, value 3 is 16") {
		t.Fatalf("err = %v, want one naming sample 7, value 3", err)
	}
	x[3] = 1.4 // within the radius of the domain: its ball meets it
	if _, err := Run(context.Background(), f, g, q, 1, []agree.Sample{{X: x}}, agree.Options{Dir: t.TempDir(), Question: "test", Workers: 1}); err != nil {
		t.Fatal(err)
	}
}

// TestRun decides two balls of the digits MLP against its int8 copy
// under a limit of one box per ball: the all-zero image's small ball
// agrees at the root, and a wider ball about a grey image is unknown,
// stopped by the node limit.
func TestRun(t *testing.T) {
	f, g := digitsPair(t)
	grey := make([]float64, 64)
	for i := range grey {
		grey[i] = 0.5
	}
	for _, c := range []struct {
		x      []float64
		radius float64
		want   agree.Verdict
	}{{make([]float64, 64), 1e-4, agree.Agree}, {grey, 0.015, agree.Unknown}} {
		q := Question{Radius: c.radius, Lo: 0, Hi: 1}
		sum, err := Run(context.Background(), f, g, q, 1, []agree.Sample{{X: c.x}}, agree.Options{Dir: t.TempDir(), Question: "test", Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Samples != 1 || len(sum.Records) != 1 {
			t.Fatalf("radius %g: %+v", c.radius, sum)
		}
		r := sum.Records[0]
		if r.Verdict != c.want || r.Nodes > 1 || (c.want == agree.Unknown && r.Reason != "node limit") {
			t.Errorf("radius %g: %+v, want %v in at most one box", c.radius, sum.Records, c.want)
		}
	}
}

// digitsPair reads the digits MLP and its int8 copy (per channel).
func digitsPair(t *testing.T) (f, g *nn.Network) {
	t.Helper()
	dir := "../../nn/onnx/testdata/qdq/digits_relu/"
	f, _, err := onnx.Read(dir + "digits_relu.onnx")
	if err != nil {
		t.Fatal(err)
	}
	g, _, err = onnx.Read(dir + "digits_relu_int8_perchannel.onnx")
	if err != nil {
		t.Fatal(err)
	}
	return f, g
}
