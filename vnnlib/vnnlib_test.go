package vnnlib

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
)

func TestRead(t *testing.T) {
	const decl2 = "(declare-const X_0 Real)\n(declare-const X_1 Real)\n"
	cases := []struct {
		name    string
		text    string
		lo, hi  []float64
		outputs int
		ignored int
	}{
		{"basic", "(declare-const X_0 Real)\n(assert (<= X_0 1))\n(assert (>= X_0 -1))",
			[]float64{-1}, []float64{1}, 0, 0},
		{"constant on the left", "(declare-const X_0 Real)\n(assert (<= 0.5 X_0))\n(assert (>= 2 X_0))",
			[]float64{0.5}, []float64{2}, 0, 0},
		{"strict", "(declare-const X_0 Real)\n(assert (< X_0 1))\n(assert (> X_0 0))",
			[]float64{0}, []float64{1}, 0, 0},
		{"chain", decl2 + "(assert (<= -1 X_0 1))\n(assert (>= 3 X_1 2))",
			[]float64{-1, 2}, []float64{1, 3}, 0, 0},
		{"and", decl2 + "(assert (and (<= X_0 1) (>= X_0 0) (and (<= X_1 5) (>= X_1 4))))",
			[]float64{0, 4}, []float64{1, 5}, 0, 0},
		{"equality", "(declare-const X_0 Real)\n(assert (= X_0 0.25))",
			[]float64{0.25}, []float64{0.25}, 0, 0},
		{"tightest wins", "(declare-const X_0 Real)\n(assert (<= X_0 3))\n(assert (<= X_0 2))\n(assert (>= X_0 -4))\n(assert (>= X_0 -5))",
			[]float64{-4}, []float64{2}, 0, 0},
		{"constant forms", "(declare-const X_0 Real)\n(assert (>= X_0 (- 0.5)))\n(assert (<= X_0 (/ 1 4)))",
			[]float64{-0.5}, []float64{0.25}, 0, 0},
		{"exponent", "(declare-const X_0 Real)\n(assert (>= X_0 -1.5e-1))\n(assert (<= X_0 +2E1))",
			[]float64{-0.15}, []float64{20}, 0, 0},
		{"or of one", "(declare-const X_0 Real)\n(assert (or (and (<= X_0 1) (>= X_0 0))))",
			[]float64{0}, []float64{1}, 0, 0},
		{"outputs ignored", "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n" +
			"(assert (<= X_0 1))\n(assert (>= X_0 0))\n(assert (<= Y_0 Y_1))\n(assert (or (and (>= Y_0 1)) (and (>= Y_1 1))))",
			[]float64{0}, []float64{1}, 2, 2},
		{"mixed and", "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (and (<= X_0 1) (>= X_0 0) (<= Y_0 3)))",
			[]float64{0}, []float64{1}, 1, 1},
		{"comments and commands", "(set-logic QF_LRA) ; logic\n; (assert (<= X_0 9))\n(declare-const X_0 Real)\n" +
			"(assert (<= X_0 1));tail\n(assert (>= X_0 0))\n(check-sat)\n(exit)",
			[]float64{0}, []float64{1}, 0, 0},
		{"crlf", "(declare-const X_0 Real)\r\n(assert (<= X_0 1))\r\n(assert (>= X_0 0))\r\n",
			[]float64{0}, []float64{1}, 0, 0},
		{"declared out of order", "(declare-const X_1 Real)\n(declare-const X_0 Real)\n(assert (<= 0 X_0 1))\n(assert (<= 2 X_1 3))",
			[]float64{0, 2}, []float64{1, 3}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Read(strings.NewReader(c.text), "p.vnnlib")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Box.Lo, c.lo) || !reflect.DeepEqual(s.Box.Hi, c.hi) {
				t.Errorf("box [%v, %v], want [%v, %v]", s.Box.Lo, s.Box.Hi, c.lo, c.hi)
			}
			if s.Outputs != c.outputs || s.IgnoredOutputAssertions != c.ignored {
				t.Errorf("outputs %d ignored %d, want %d and %d", s.Outputs, s.IgnoredOutputAssertions, c.outputs, c.ignored)
			}
			if (c.ignored > 0) != (s.Note() != "") {
				t.Errorf("note %q with %d ignored assertions", s.Note(), c.ignored)
			}
			if err := s.Box.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	const x0 = "(declare-const X_0 Real)\n"
	cases := []struct {
		name     string
		text     string
		sentinel error
		want     string // the whole message
	}{
		{"empty", "", ErrIncomplete, "p.vnnlib: no inputs declared (want (declare-const X_0 Real) ...)"},
		{"only comments", "; nothing\n\n", ErrIncomplete, "p.vnnlib: no inputs declared (want (declare-const X_0 Real) ...)"},
		{"unclosed", x0 + "(assert (<= X_0 1)\n", ErrSyntax, "p.vnnlib:2: unclosed '(' (end of file reached)"},
		{"stray close", x0 + ")", ErrSyntax, "p.vnnlib:2: unexpected ')'"},
		{"bare atom", "X_0", ErrSyntax, `p.vnnlib:1: unexpected "X_0" outside parentheses`},
		{"binary", "\x00\x01\x02", ErrSyntax, "p.vnnlib:1: unexpected byte 0x00"},
		{"string", x0 + `(set-info :source "x")`, ErrSyntax, "p.vnnlib:2: quoted symbols and strings are not supported"},
		{"no lower", x0 + "(assert (<= X_0 1))", ErrIncomplete, "p.vnnlib:1: X_0 has no lower bound"},
		{"no upper", x0 + "(assert (>= X_0 1))", ErrIncomplete, "p.vnnlib:1: X_0 has no upper bound"},
		{"no bounds", x0, ErrIncomplete, "p.vnnlib:1: X_0 has no bounds (want (>= X_0 lo) and (<= X_0 hi))"},
		{"gap", "(declare-const X_0 Real)\n(declare-const X_2 Real)\n(assert (<= 0 X_0 1))\n(assert (<= 0 X_2 1))",
			ErrIncomplete, "p.vnnlib: 2 inputs declared but X_1 is missing"},
		{"empty range", x0 + "(assert (<= X_0 0))\n(assert (>= X_0 1))", ErrIncomplete,
			"p.vnnlib:3: X_0 has an empty range: lower bound 1 (line 3) > upper bound 0 (line 2)"},
		{"or over inputs", x0 + "(assert (or (<= X_0 0)\n (>= X_0 1)))", ErrUnsupported,
			"p.vnnlib:2: disjunction (or ...) over inputs is not supported: the input set must be one box"},
		{"not", x0 + "(assert (not (<= X_0 0)))", ErrUnsupported,
			`p.vnnlib:2: "not" over inputs is not supported (want <=, >=, <, >, = or and)`},
		{"two inputs", "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(assert (<= X_0 X_1))", ErrUnsupported,
			"p.vnnlib:3: constraint between X_0 and X_1 is not supported (only constant bounds)"},
		{"linear", x0 + "(assert (<= (+ X_0 1) 2))", ErrUnsupported,
			"p.vnnlib:2: bound (+ X_0 1) is not a constant (only X_i <= c and X_i >= c are supported)"},
		{"input and output", x0 + "(declare-const Y_0 Real)\n(assert (<= X_0 Y_0))", ErrUnsupported,
			"p.vnnlib:3: constraint (<= X_0 Y_0) couples inputs and outputs"},
		{"undeclared", "(assert (<= X_0 1))", ErrSyntax, "p.vnnlib:1: X_0 is used before it is declared"},
		{"undeclared output", x0 + "(assert (<= Y_3 1))", ErrSyntax, "p.vnnlib:2: Y_3 is used before it is declared"},
		{"bad name", "(declare-const x Real)", ErrUnsupported, `p.vnnlib:1: variable name "x": want X_i for inputs or Y_j for outputs`},
		{"leading zero", "(declare-const X_01 Real)", ErrUnsupported, `p.vnnlib:1: variable name "X_01": want X_i for inputs or Y_j for outputs`},
		{"int type", "(declare-const X_0 Int)", ErrUnsupported, "p.vnnlib:1: variable X_0 has type Int; only Real is supported"},
		{"redeclared", x0 + x0, ErrSyntax, "p.vnnlib:2: X_0 declared again (first on line 1)"},
		{"nan", x0 + "(assert (<= X_0 nan))", ErrUnsupported, `p.vnnlib:2: "nan" is not a number or a declared variable`},
		{"inf", x0 + "(assert (<= X_0 1e999))", ErrUnsupported, `p.vnnlib:2: "1e999" is not a number or a declared variable`},
		{"hex", x0 + "(assert (<= X_0 0x1p-2))", ErrUnsupported, `p.vnnlib:2: "0x1p-2" is not a number or a declared variable`},
		{"divide by zero", x0 + "(assert (<= X_0 (/ 1 0)))", ErrUnsupported, "p.vnnlib:2: division by zero in (/ 1 0)"},
		{"unknown command", "(define-fun f () Real 1)", ErrUnsupported, `p.vnnlib:1: command "define-fun" is not supported`},
		{"assert arity", x0 + "(assert)", ErrSyntax, "p.vnnlib:2: assert takes one expression, got 0"},
		{"no variable", x0 + "(assert (<= 1 2))", ErrUnsupported, "p.vnnlib:2: assertion (<= 1 2) mentions no variable"},
		{"one argument", x0 + "(assert (<= X_0))", ErrSyntax, "p.vnnlib:2: <= needs at least two arguments in (<= X_0)"},
		{"deep", x0 + strings.Repeat("(", 100), ErrSyntax, "p.vnnlib:2: expressions nested deeper than 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.text), "p.vnnlib")
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, c.sentinel) {
				t.Errorf("error %v is not %v", err, c.sentinel)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	s, err := ReadFile(filepath.Join("testdata", "box2.vnnlib"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Box.Lo, []float64{-0.5, -1}) || !reflect.DeepEqual(s.Box.Hi, []float64{0.25, 1}) {
		t.Errorf("box [%v, %v]", s.Box.Lo, s.Box.Hi)
	}
	if s.IgnoredOutputAssertions != 1 || s.Outputs != 2 {
		t.Errorf("outputs %d, ignored %d", s.Outputs, s.IgnoredOutputAssertions)
	}
	for _, name := range []string{"or_inputs.vnnlib", "gap.vnnlib", "missing.vnnlib", "."} {
		if _, err := ReadFile(filepath.Join("testdata", name)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	_, err = ReadFile(filepath.Join("testdata", "or_inputs.vnnlib"))
	if want := "or_inputs.vnnlib:2: disjunction"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want prefix %q", err, want)
	}
}

// TestVeryDiff reads the VNN-LIB properties of the VeryDiff benchmarks.
func TestVeryDiff(t *testing.T) {
	dir := sharedtest.Path(t, "data", "benchmarks", "verydiff")
	cases := []struct {
		file   string
		n      int
		lo, hi map[int]float64 // a few coordinates to check
	}{
		{"prop_1.vnnlib", 5, map[int]float64{0: 0.6, 1: -0.5, 4: -0.5}, map[int]float64{0: 0.679857769, 3: 0.5, 4: -0.45}},
		{"mnist_0_local_15.vnnlib", 784, map[int]float64{0: 0, 783: 0}, map[int]float64{0: 0, 783: 0}},
		{"mnist_7_local_15.vnnlib", 784, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			s, err := ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if s.Box.Dim() != c.n {
				t.Fatalf("%d inputs, want %d", s.Box.Dim(), c.n)
			}
			if err := s.Box.Validate(); err != nil {
				t.Fatal(err)
			}
			for i, v := range c.lo {
				if s.Box.Lo[i] != v {
					t.Errorf("lo[%d] = %v, want %v", i, s.Box.Lo[i], v)
				}
			}
			for i, v := range c.hi {
				if s.Box.Hi[i] != v {
					t.Errorf("hi[%d] = %v, want %v", i, s.Box.Hi[i], v)
				}
			}
		})
	}
}

// TestRandomBytes checks that random bytes give an error, never a panic.
func TestRandomBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		if _, err := Read(strings.NewReader(string(b)), "r.vnnlib"); err == nil {
			t.Errorf("no error for %q", b)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add("(declare-const X_0 Real)\n(assert (<= -1 X_0 1))")
	f.Add("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (and (>= X_0 (- 1)) (<= X_0 (/ 1 2)) (<= Y_0 1)))")
	f.Add("(declare-const X_0 Real)\n(assert (or (and (>= X_0 0) (<= X_0 1))))")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Read(strings.NewReader(text), "f.vnnlib")
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if err := s.Box.Validate(); err != nil {
			t.Fatalf("accepted box is invalid: %v", err)
		}
	})
}
