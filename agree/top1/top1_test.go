package top1

import (
	"context"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/agree"
	"github.com/nnbound/nnbound/verify"
)

func TestBallClipped(t *testing.T) {
	q := Question{Radius: 0.25, Lo: 0, Hi: 1}
	b := q.Ball([]float64{0.1, 0.5, 1, 1.5})
	if !slices.Equal(b.Lo, []float64{0, 0.25, 0.75, 1}) || !slices.Equal(b.Hi, []float64{0.35, 0.75, 1, 1}) {
		t.Errorf("ball %v..%v", b.Lo, b.Hi)
	}
}

// TestDeciderVerdicts decides the all-zero image of the digits MLP
// against its int8 copy on a small and a large ball, and checks a
// disagreement's witness again.
func TestDeciderVerdicts(t *testing.T) {
	f, g := digitsPair(t)
	s := agree.Sample{X: make([]float64, 64), Label: 0}
	for _, c := range []struct {
		r    float64
		want agree.Verdict
	}{{1e-4, agree.Agree}, {1, agree.Disagree}} {
		o := Decider(f, g, Question{Radius: c.r, Lo: 0, Hi: 1}, nil)(context.Background(), s)
		if o.Verdict != c.want {
			t.Fatalf("radius %g: %+v, want %v", c.r, o, c.want)
		}
		if o.Verdict == agree.Disagree {
			if _, st, err := verify.CheckTop1(f, g, o.Witness, o.Witness); err != nil || st != verify.Violated {
				t.Errorf("the witness checks %v, %v", st, err)
			}
		}
	}
	short := Decider(f, g, Question{Radius: 1, Hi: 1}, nil)(context.Background(), agree.Sample{X: []float64{0}})
	if short.Verdict != agree.Error {
		t.Errorf("a short sample: %+v", short)
	}
}
