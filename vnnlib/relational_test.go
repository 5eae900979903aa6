package vnnlib

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/spec"
)

// monotonicHead declares g equal to f, as VNN-COMP's monotonicity
// template does.
const monotonicHead = `(vnnlib-version <2.0>)
(declare-network f
  (declare-input X_f real [2])
  (declare-output Y_f real [2]))
(declare-network g
  (equal-to f)
  (declare-input X_g real [2])
  (declare-output Y_g real [2]))
(assert (<= 0 X_f[0] 1))
(assert (<= -1 X_f[1] 1))
(assert (<= 0 X_g[0] 1))
(assert (<= X_f[0] X_g[0]))
(assert (== X_f[1] X_g[1]))
`

func TestReadPairRelational(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name   string
		text   string
		boxG   spec.Box
		links  []spec.InputLink
		unsafe []spec.Conjunction
	}{
		{"monotonicity", monotonicHead + "(assert (< Y_g[1] Y_f[1]))",
			spec.Box{Lo: []float64{0, -1}, Hi: []float64{1, 1}},
			[]spec.InputLink{{I: 0, Lo: 0, Hi: inf, Line: 12}, {I: 1, Line: 13}},
			[]spec.Conjunction{{{F: []spec.Term{{K: 1, Coef: -1}}, G: []spec.Term{{K: 1, Coef: 1}}, Strict: true, Line: 14}}}},
		{"some output differs", monotonicHead + "(assert (or (> (- Y_g[0] Y_f[0]) 0.1) (< (- Y_g[0] Y_f[0]) -0.1) (>= (* 2 Y_f[1]) Y_g[0])))",
			spec.Box{Lo: []float64{0, -1}, Hi: []float64{1, 1}},
			[]spec.InputLink{{I: 0, Lo: 0, Hi: inf, Line: 12}, {I: 1, Line: 13}},
			[]spec.Conjunction{
				{{F: []spec.Term{{K: 0, Coef: 1}}, G: []spec.Term{{K: 0, Coef: -1}}, C: 0.1, Strict: true, Line: 14}},
				{{F: []spec.Term{{K: 0, Coef: -1}}, G: []spec.Term{{K: 0, Coef: 1}}, C: 0.1, Strict: true, Line: 14}},
				{{F: []spec.Term{{K: 1, Coef: -2}}, G: []spec.Term{{K: 0, Coef: 1}}, Line: 14}},
			}},
		{"bounded difference, g boxed by the link", strings.Replace(monotonicHead, "(assert (<= 0 X_g[0] 1))\n", "", 1) +
			"(assert (<= (- X_g[0] X_f[0]) 0.5))\n(assert (and (<= Y_f[0] 3) (>= Y_g[0] 4)))",
			spec.Box{Lo: []float64{0, -1}, Hi: []float64{1.5, 1}},
			[]spec.InputLink{{I: 0, Lo: 0, Hi: 0.5, Line: 11}, {I: 1, Line: 12}},
			[]spec.Conjunction{{{F: []spec.Term{{K: 0, Coef: 1}}, C: -3, Line: 14}, {G: []spec.Term{{K: 0, Coef: -1}}, C: 4, Line: 14}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ReadPair(strings.NewReader(c.text), "m.vnnlib")
			if err != nil {
				t.Fatal(err)
			}
			r := p.Relational
			if r == nil || p.G.EqualTo != "f" {
				t.Fatalf("read as %+v, equal to %q", p.Property, p.G.EqualTo)
			}
			if !reflect.DeepEqual(r.BoxF, spec.Box{Lo: []float64{0, -1}, Hi: []float64{1, 1}}) || !reflect.DeepEqual(r.BoxG, c.boxG) {
				t.Errorf("boxes %v %v, want g's %v", r.BoxF, r.BoxG, c.boxG)
			}
			if !reflect.DeepEqual(r.Links, c.links) {
				t.Errorf("links\n got %+v\nwant %+v", r.Links, c.links)
			}
			if !reflect.DeepEqual(r.Unsafe, c.unsafe) {
				t.Errorf("unsafe\n got %+v\nwant %+v", r.Unsafe, c.unsafe)
			}
			if err := r.Validate(2, 2); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSpecRelational(t *testing.T) {
	text := `(declare-const X_0 Real)
(declare-const X_1 Real)
(declare-const Y_0 Real)
(declare-const Y_1 Real)
(assert (and (<= 0 X_0 1) (<= -1 X_1 1) (>= Y_0 3.5)))
(assert (or (and (<= Y_0 Y_1)) (and (> Y_1 2))))`
	s, err := Read(strings.NewReader(text), "p.vnnlib")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Relational()
	if err != nil {
		t.Fatal(err)
	}
	want := []spec.Conjunction{
		{{F: []spec.Term{{K: 0, Coef: -1}}, C: 3.5, Line: 5}, {F: []spec.Term{{K: 0, Coef: 1}, {K: 1, Coef: -1}}, Line: 6}},
		{{F: []spec.Term{{K: 0, Coef: -1}}, C: 3.5, Line: 5}, {F: []spec.Term{{K: 1, Coef: -1}}, C: 2, Strict: true, Line: 6}},
	}
	if !r.Single() || !reflect.DeepEqual(r.Unsafe, want) || !reflect.DeepEqual(r.BoxF, s.Box) {
		t.Errorf("got %+v\nwant %+v", r.Unsafe, want)
	}
	if err := r.Validate(2, 0); err != nil {
		t.Error(err)
	}
}
