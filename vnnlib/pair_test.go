package vnnlib

import (
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// pairHead declares f and g with two inputs and two outputs each.
const pairHead = `(vnnlib-version <2.0>)
(declare-network f
  (declare-input X_f real [2])
  (declare-output Y_f real [2]))
(declare-network g
  (isomorphic-to f)
  (declare-input X_g real [2])
  (declare-output Y_g real [2]))
`

// pairBox bounds X_f to [0, 1] x [-1, 1] and equates the inputs.
const pairBox = `(assert (and (<= X_f[0] 1) (>= X_f[0] 0)))
(assert (<= -1 X_f[1] 1))
(assert (== X_f[0] X_g[0]))
(assert (== X_g[1] X_f[1]))
`

func TestReadPair(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name    string
		text    string
		lo, hi  []float64 // f's box
		same    bool
		loG     []float64 // g's box when not same
		outputs []spec.OutputBound
	}{
		{"shared form", pairHead + pairBox + "(assert (and (<= Y_g[0] (+ Y_f[0] 0.05)) (>= Y_g[0] (- Y_f[0] 0.05))))",
			[]float64{0, -1}, []float64{1, 1}, true, nil,
			[]spec.OutputBound{{K: 0, Lo: -0.05, Hi: 0.05, Line: 13}}},
		{"difference on the left", pairHead + pairBox + "(assert (<= (- Y_g[1] Y_f[1]) 0.5))\n(assert (>= (- Y_g[1] Y_f[1]) -0.25))",
			[]float64{0, -1}, []float64{1, 1}, true, nil,
			[]spec.OutputBound{{K: 1, Lo: -0.25, Hi: 0.5, Line: 13}}},
		{"f first, one-sided", pairHead + pairBox + "(assert (<= Y_f[0] (+ Y_g[0] 0.1)))",
			[]float64{0, -1}, []float64{1, 1}, true, nil,
			[]spec.OutputBound{{K: 0, Lo: -0.1, Hi: inf, Line: 13}}},
		{"strict and chain", pairHead + pairBox + "(assert (< (- Y_f[1] 0.5) Y_g[1] (+ Y_f[1] 0.5)))",
			[]float64{0, -1}, []float64{1, 1}, true, nil,
			[]spec.OutputBound{{K: 1, Lo: -0.5, Hi: 0.5, StrictLo: true, StrictHi: true, Line: 13}}},
		{"tightest wins", pairHead + pairBox + "(assert (<= Y_g[0] (+ Y_f[0] 1)))\n(assert (<= Y_g[0] (+ Y_f[0] 0.5)))\n(assert (>= Y_g[0] (- Y_f[0] 2)))",
			[]float64{0, -1}, []float64{1, 1}, true, nil,
			[]spec.OutputBound{{K: 0, Lo: -2, Hi: 0.5, Line: 14}}},
		{"scaled terms", pairHead + pairBox + "(assert (<= (/ (* 2 Y_g[0]) 2) (- (* (- 1) (- Y_f[0])) (- 1))))",
			[]float64{0, -1}, []float64{1, 1}, true, nil,
			[]spec.OutputBound{{K: 0, Lo: math.Inf(-1), Hi: 1, Line: 13}}},
		{"equality of outputs", pairHead + pairBox + "(assert (== Y_g[1] Y_f[1]))",
			[]float64{0, -1}, []float64{1, 1}, true, nil,
			[]spec.OutputBound{{K: 1, Lo: 0, Hi: 0, Line: 13}}},
		{"g's bounds narrow the box", pairHead + pairBox + "(assert (<= X_g[0] 0.5))\n(assert (== X_g[1] 0))\n(assert (<= Y_g[0] Y_f[0]))",
			[]float64{0, 0}, []float64{0.5, 0}, true, nil,
			[]spec.OutputBound{{K: 0, Lo: math.Inf(-1), Hi: 0, Line: 15}}},
		{"independent inputs", pairHead + "(assert (<= 0 X_f[0] 1))\n(assert (<= 0 X_f[1] 1))\n(assert (<= 2 X_g[0] 3))\n(assert (<= 2 X_g[1] 3))\n(assert (<= Y_g[0] Y_f[0]))",
			[]float64{0, 0}, []float64{1, 1}, false, []float64{2, 2},
			[]spec.OutputBound{{K: 0, Lo: math.Inf(-1), Hi: 0, Line: 13}}},
		{"comments, Real and float32", strings.ReplaceAll(strings.ReplaceAll(pairHead, "X_f real", "X_f Real"), "Y_g real", "Y_g float32") +
			"; input set\n" + pairBox + "(assert (<= Y_g[0] Y_f[0])) ; property\n",
			[]float64{0, -1}, []float64{1, 1}, true, nil,
			[]spec.OutputBound{{K: 0, Lo: math.Inf(-1), Hi: 0, Line: 14}}},
		{"multi-dimensional", `(vnnlib-version <2.0>)
(declare-network f (declare-input X_f real [1,2]) (declare-output Y_f real [1]))
(declare-network g (declare-input X_g real [1,2]) (declare-output Y_g real [1]))
(assert (and (<= 0 X_f[0,0] 1) (<= 2 X_f[0,1] 3) (== X_f[0,0] X_g[0,0]) (== X_f[0,1] X_g[0,1])))
(assert (<= (- Y_g[0] Y_f[0]) 1e-3))`,
			[]float64{0, 2}, []float64{1, 3}, true, nil,
			[]spec.OutputBound{{K: 0, Lo: math.Inf(-1), Hi: 1e-3, Line: 5}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ReadPair(strings.NewReader(c.text), "p.vnnlib")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Box.Lo, c.lo) || !reflect.DeepEqual(p.Box.Hi, c.hi) {
				t.Errorf("box [%v, %v], want [%v, %v]", p.Box.Lo, p.Box.Hi, c.lo, c.hi)
			}
			if p.Same != c.same {
				t.Errorf("same %v, want %v", p.Same, c.same)
			}
			if !c.same && !reflect.DeepEqual(p.BoxG.Lo, c.loG) {
				t.Errorf("g's box starts at %v, want %v", p.BoxG.Lo, c.loG)
			}
			if !reflect.DeepEqual(p.Outputs, c.outputs) {
				t.Errorf("outputs\n got %+v\nwant %+v", p.Outputs, c.outputs)
			}
			if err := p.Box.Validate(); err != nil {
				t.Error(err)
			}
			if p.F.Name != "f" || p.G.Name != "g" || p.F.Input.Size() != 2 {
				t.Errorf("networks %+v %+v", p.F, p.G)
			}
		})
	}
}

func TestReadPairErrors(t *testing.T) {
	out := "(assert (<= Y_g[0] (+ Y_f[0] 0.05)))\n"
	cases := []struct {
		name     string
		text     string
		sentinel error
		want     string
	}{
		{"empty", "", ErrIncomplete, "p.vnnlib: no (vnnlib-version <2.0>)"},
		{"version 1 file", "(declare-const X_0 Real)", ErrUnsupported,
			"p.vnnlib:1: a two-network property starts with (vnnlib-version <2.0>), got (declare-const X_0 Real)"},
		{"other version", "(vnnlib-version <3.0>)", ErrUnsupported, "p.vnnlib:1: VNN-LIB version <3.0> is not supported (want <2.0>)"},
		{"version twice", "(vnnlib-version <2.0>)\n(vnnlib-version <2.0>)", ErrSyntax, "p.vnnlib:2: vnnlib-version given twice"},
		{"one network", "(vnnlib-version <2.0>)\n(declare-network f (declare-input X real [1]) (declare-output Y real [1]))",
			ErrIncomplete, "p.vnnlib: 1 network(s) declared; a two-network property declares two"},
		{"three networks", pairHead + "(declare-network h (declare-input X_h real [2]) (declare-output Y_h real [2]))",
			ErrUnsupported, "p.vnnlib:9: network h: only two networks are supported"},
		{"no output constraint", pairHead + pairBox, ErrIncomplete, "p.vnnlib: no output constraint on Y_g - Y_f"},
		{"or", pairHead + pairBox + "(assert (or (<= Y_g[0] Y_f[0]) (<= Y_g[1] Y_f[1])))", ErrUnsupported,
			"p.vnnlib:13: disjunction (or (<= Y_g[0] Y_f[0]) (<= Y_g[1] Y_f[1])) is not supported"},
		{"mixed", pairHead + pairBox + "(assert (<= X_f[0] Y_f[0]))", ErrUnsupported,
			"p.vnnlib:13: constraint (<= X_f[0] Y_f[0]) couples inputs and outputs"},
		{"one network's output", pairHead + pairBox + "(assert (<= Y_f[0] 3))", ErrUnsupported,
			"p.vnnlib:13: output constraint (<= Y_f[0] 3) is not a bound on Y_g[k] - Y_f[k]"},
		{"different outputs", pairHead + pairBox + "(assert (<= Y_g[0] Y_f[1]))", ErrUnsupported,
			"p.vnnlib:13: output constraint (<= Y_g[0] Y_f[1]) is not a bound on Y_g[k] - Y_f[k]"},
		{"sum of outputs", pairHead + pairBox + "(assert (<= (+ Y_g[0] Y_f[0]) 1))", ErrUnsupported,
			"p.vnnlib:13: output constraint (<= (+ Y_g[0] Y_f[0]) 1) is not a bound on Y_g[k] - Y_f[k]"},
		{"scaled output", pairHead + pairBox + "(assert (<= (* 2 Y_g[0]) Y_f[0]))", ErrUnsupported,
			"p.vnnlib:13: (<= (* 2 Y_g[0]) Y_f[0]): Y_g[0] has coefficient 2; only +1 and -1 are supported"},
		{"product of variables", pairHead + pairBox + "(assert (<= (* Y_g[0] Y_f[0]) 1))", ErrUnsupported,
			"p.vnnlib:13: (* Y_g[0] Y_f[0]) is not linear"},
		{"unknown name", pairHead + pairBox + "(assert (<= Z[0] 1))", ErrSyntax,
			"p.vnnlib:13: Z[0]: Z is not a declared input or output"},
		{"unknown atom", pairHead + pairBox + "(assert (<= Y_g[0] eps))", ErrUnsupported,
			`p.vnnlib:13: "eps" is not a number or a declared variable`},
		{"no index", pairHead + pairBox + "(assert (<= Y_g Y_f))", ErrUnsupported, "p.vnnlib:13: Y_g needs an index, as in Y_g[0]"},
		{"index outside", pairHead + "(assert (<= X_f[2] 1))", ErrSyntax, `p.vnnlib:9: X_f[2]: index "2" is outside the shape [2] of X_f`},
		{"two indices", pairHead + "(assert (<= X_f[0,0] 1))", ErrSyntax, "p.vnnlib:9: X_f[0,0]: X_f has shape [2], so 1 indices"},
		{"shapes disagree", strings.Replace(pairHead, "Y_g real [2]", "Y_g real [3]", 1), ErrUnsupported,
			"p.vnnlib:5: network g is isomorphic to f but their shapes disagree ([2] -> [3] against [2] -> [2])"},
		{"equated inputs of different shapes", strings.Replace(strings.Replace(pairHead, "X_g real [2]", "X_g real [3]", 1), "(isomorphic-to f)", "", 1) +
			pairBox + out, ErrUnsupported, "p.vnnlib:7: inputs X_f [2] and X_g [3] are equated but their shapes disagree"},
		{"partly equated", pairHead + "(assert (<= 0 X_f[0] 1))\n(assert (<= 0 X_f[1] 1))\n(assert (== X_f[1] X_g[1]))\n" + out, ErrUnsupported,
			"p.vnnlib: 1 of the 2 coordinates of X_f are equated with X_g, but not X_f[0]: equate every coordinate or none"},
		{"crossed equality", pairHead + pairBox + "(assert (== X_f[0] X_g[1]))", ErrUnsupported,
			"p.vnnlib:13: (== X_f[0] X_g[1]) pairs X_f[0] with X_g[1]: only X_f[i] == X_g[i] is supported"},
		{"inequality between networks", pairHead + "(assert (<= X_f[0] X_g[0]))", ErrUnsupported,
			"p.vnnlib:9: (<= X_f[0] X_g[0]): inputs of the two networks may only be equated (==)"},
		{"offset equality", pairHead + "(assert (== X_f[0] (+ X_g[0] 1)))", ErrUnsupported,
			"p.vnnlib:9: (== X_f[0] (+ X_g[0] 1)): only X_f[0] == X_g[0] is supported, with no offset or sign"},
		{"two inputs of f", pairHead + "(assert (<= X_f[0] X_f[1]))", ErrUnsupported,
			"p.vnnlib:9: constraint (<= X_f[0] X_f[1]) between inputs is not supported (only constant bounds and X_f[i] == X_g[i])"},
		{"no lower bound", pairHead + "(assert (<= X_f[0] 1))\n(assert (<= 0 X_f[1] 1))\n(assert (== X_f[0] X_g[0]))\n(assert (== X_f[1] X_g[1]))\n" + out,
			ErrIncomplete, "p.vnnlib:3: X_f[0] has no lower bound"},
		{"g unbounded", pairHead + "(assert (<= 0 X_f[0] 1))\n(assert (<= 0 X_f[1] 1))\n" + out,
			ErrIncomplete, "p.vnnlib:7: X_g[0] has no bounds"},
		{"empty input range", pairHead + "(assert (<= X_f[0] 0))\n(assert (>= X_f[0] 1))", ErrIncomplete,
			"p.vnnlib:10: X_f[0] has an empty range: lower bound 1 (line 10) > upper bound 0 (line 9)"},
		{"empty after equality", pairHead + pairBox + "(assert (>= X_g[0] 2))\n" + out, ErrIncomplete,
			"p.vnnlib:11: X_f[0] has an empty range: lower bound 2 (line 13) > upper bound 1 (line 9)"},
		{"property never holds", pairHead + pairBox + "(assert (< Y_g[0] Y_f[0]))\n(assert (>= Y_g[0] Y_f[0]))", ErrIncomplete,
			"p.vnnlib:14: the property on Y_g[0] - Y_f[0] can never hold: [0, 0] is empty"},
		{"no variable", pairHead + "(assert (<= 1 2))", ErrUnsupported, "p.vnnlib:9: comparison (<= 1 2) mentions no variable"},
		{"not", pairHead + "(assert (not (<= X_f[0] 1)))", ErrUnsupported, `p.vnnlib:9: "not" is not supported (want and, <=, >=, <, >, ==)`},
		{"declare-const", "(vnnlib-version <2.0>)\n(declare-const X_0 Real)", ErrUnsupported,
			`p.vnnlib:2: command "declare-const" is not supported in a two-network property`},
		{"unknown item", "(vnnlib-version <2.0>)\n(declare-network f (declare-hidden H real [2]))", ErrUnsupported,
			"p.vnnlib:2: (declare-hidden H real [2]) in declare-network is not supported (want declare-input, declare-output or isomorphic-to)"},
		{"no output declared", "(vnnlib-version <2.0>)\n(declare-network f (declare-input X real [2]))", ErrIncomplete,
			"p.vnnlib:2: network f declares no output"},
		{"two inputs", "(vnnlib-version <2.0>)\n(declare-network f (declare-input X real [2]) (declare-input Z real [2]))", ErrUnsupported,
			"p.vnnlib:2: network f declares a second input Z; only one is supported"},
		{"redeclared tensor", "(vnnlib-version <2.0>)\n(declare-network f (declare-input X real [2]) (declare-output X real [2]))", ErrSyntax,
			"p.vnnlib:2: X declared again (first on line 2)"},
		{"int type", "(vnnlib-version <2.0>)\n(declare-network f (declare-input X int [2]))", ErrUnsupported,
			"p.vnnlib:2: X has type int; want real, float16, float32 or float64"},
		{"bad shape", "(vnnlib-version <2.0>)\n(declare-network f (declare-input X real [0]))", ErrSyntax,
			`p.vnnlib:2: shape [0] of X: size "0" is not a positive integer`},
		{"shape with spaces", "(vnnlib-version <2.0>)\n(declare-network f (declare-input X real [1, 2]))", ErrSyntax,
			"p.vnnlib:2: want (declare-input NAME TYPE [SHAPE]) with the shape written without spaces, got (declare-input X real [1, 2])"},
		{"huge shape", "(vnnlib-version <2.0>)\n(declare-network f (declare-input X real [65536,65536]))", ErrSyntax,
			"p.vnnlib:2: shape [65536,65536] of X: more than 16777216 elements"},
		{"isomorphic to unknown", "(vnnlib-version <2.0>)\n(declare-network f (isomorphic-to h))", ErrSyntax,
			"p.vnnlib:2: network f is isomorphic to h, which is not declared before it"},
		{"assertion before g", "(vnnlib-version <2.0>)\n(declare-network f (declare-input X real [2]) (declare-output Y real [1]))\n(assert (= 0 X[0] X[1]))",
			ErrSyntax, "p.vnnlib:3: assertion before both networks are declared"},
		{"network twice", pairHead[:strings.Index(pairHead, "(declare-network g")] + "(declare-network f)", ErrSyntax,
			"p.vnnlib:5: network f declared again (first on line 2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadPair(strings.NewReader(c.text), "p.vnnlib")
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, c.sentinel) {
				t.Errorf("error %v is not %v", err, c.sentinel)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Errorf("error %v is not an *Error", err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	cases := []struct{ text, want, err string }{
		{pairHead, "2.0", ""},
		{"; comment\n(vnnlib-version <2.0>)", "2.0", ""},
		{"(declare-const X_0 Real)", "1", ""},
		{"", "1", ""},
		{"(vnnlib-version 2.0)", "", "v.vnnlib:1: VNN-LIB version 2.0 is not supported (want <2.0>)"},
		{"(vnnlib-version", "", "v.vnnlib:1: unclosed '(' (end of file reached)"},
	}
	for _, c := range cases {
		v, err := Version(strings.NewReader(c.text), "v.vnnlib")
		if v != c.want || (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("Version(%.30q) = %q, %v; want %q, %s", c.text, v, err, c.want, c.err)
		}
	}
	if _, err := ReadPropertyFile(filepath.Join("testdata", "missing.vnnlib")); err == nil {
		t.Error("no error for a missing file")
	}
}

func TestCheckNetworks(t *testing.T) {
	p, err := ReadPair(strings.NewReader(pairHead+pairBox+"(assert (<= Y_g[0] Y_f[0]))"), "p.vnnlib")
	if err != nil {
		t.Fatal(err)
	}
	net := func(in, out int) *nn.Network {
		return &nn.Network{Layers: []nn.Layer{{W: mat.NewDense(out, in, nil), B: make([]float64, out)}}}
	}
	if err := p.CheckNetworks(net(2, 2), net(2, 2)); err != nil {
		t.Error(err)
	}
	err = p.CheckNetworks(net(2, 2), net(3, 2))
	if want := "vnnlib: network g takes 3 inputs but the property declares X_g with 2 (line 7): dimension mismatch"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if err := p.CheckNetworks(net(2, 1), net(2, 2)); !errors.Is(err, nn.ErrDimension) {
		t.Errorf("error %v", err)
	}
}

// TestVeriPrune reads the shared equivalence property of the VeriPrune
// benchmark.
func TestVeriPrune(t *testing.T) {
	path := sharedtest.Path(t, "data", "benchmarks", "veriprune", "equivalence_eps0.05.vnnlib")
	prop, err := ReadPropertyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := prop.Version(); v != "2.0" {
		t.Fatalf("version %q", v)
	}
	p := prop.Pair
	wantLo := []float64{0.6, -0.5, -0.5, 0.45, -0.45}
	wantHi := []float64{0.679857769, 0.5, 0.5, 0.5, -0.45}
	if !reflect.DeepEqual(p.Box.Lo, wantLo) || !reflect.DeepEqual(p.Box.Hi, wantHi) {
		t.Errorf("box [%v, %v]", p.Box.Lo, p.Box.Hi)
	}
	if !p.Same || p.G.IsomorphicTo != "f" || len(p.Outputs) != 5 {
		t.Fatalf("same %v, isomorphic to %q, %d outputs", p.Same, p.G.IsomorphicTo, len(p.Outputs))
	}
	for k, b := range p.Outputs {
		if eps, ok := b.Eps(); !ok || eps != 0.05 || b.K != k {
			t.Errorf("output %d: %+v", k, b)
		}
	}
	if _, err := ReadFile(path); err == nil {
		t.Error("the VNN-LIB 1 reader accepted a 2.0 file")
	}
}

func FuzzReadPair(f *testing.F) {
	f.Add(pairHead + pairBox + "(assert (and (<= Y_g[0] (+ Y_f[0] 0.05)) (>= Y_g[0] (- Y_f[0] 0.05))))")
	f.Add(pairHead + "(assert (<= 0 X_f[0] 1))\n(assert (<= 0 X_f[1] 1))\n(assert (<= 2 X_g[0] 3))\n(assert (<= 2 X_g[1] 3))\n(assert (< (- Y_g[1] Y_f[1]) 1))")
	f.Add("(vnnlib-version <2.0>)\n(declare-network f (declare-input X real [1,2]) (declare-output Y real [1]))")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ReadPair(strings.NewReader(text), "f.vnnlib")
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if err := p.Box.Validate(); err != nil {
			t.Fatalf("accepted box is invalid: %v", err)
		}
		if p.Box.Dim() != p.F.Input.Size() {
			t.Fatalf("box of %d coordinates for %d inputs", p.Box.Dim(), p.F.Input.Size())
		}
		if !p.Same {
			if err := p.BoxG.Validate(); err != nil {
				t.Fatalf("accepted box of g is invalid: %v", err)
			}
		}
		for _, b := range p.Outputs {
			if b.K >= p.F.Output.Size() || b.K >= p.G.Output.Size() || !(b.Lo <= b.Hi) {
				t.Fatalf("output bound %+v", b)
			}
		}
	})
}

// TestReadProperty reads both versions through one reader.
func TestReadProperty(t *testing.T) {
	v1 := "(declare-const X_0 Real)\n(assert (>= X_0 0))\n(assert (<= X_0 1))\n"
	v2 := pairHead + pairBox + "(assert (<= Y_g[0] Y_f[0]))"
	for _, c := range []struct{ text, version string }{{v1, "1"}, {v2, "2.0"}} {
		p, err := ReadProperty(strings.NewReader(c.text), "p.vnnlib")
		if err != nil {
			t.Fatal(err)
		}
		if p.Version() != c.version || (p.Spec != nil) == (p.Pair != nil) {
			t.Errorf("version %s: got %s, %+v", c.version, p.Version(), p)
		}
	}
	if _, err := ReadProperty(strings.NewReader("(vnnlib-version <2.0>)\n(declare-const X_0 Real)"), "p.vnnlib"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a 2.0 file with a VNN-LIB 1 command: %v", err)
	}
}
