package vnncomp

import (
	"bufio"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// twoNetWitness is a witness of a two-network query with 2 inputs and 1
// output per network, as the isomorphic ACAS Xu benchmark declares them.
func twoNetWitness() *Witness {
	x := []float64{float64(float32(0.6)), -0.5}
	return &Witness{Vars: []Var{
		{Name: "X_f", Type: "float32", Shape: []int{2}, Values: x},
		{Name: "Y_f", Type: "float32", Shape: []int{1}, Values: []float64{float64(float32(1.0 / 3))}},
		{Name: "X_g", Type: "float32", Shape: []int{2}, Values: x},
		{Name: "Y_g", Type: "float32", Shape: []int{1}, Values: []float64{0.25}},
	}}
}

func TestWriteResultSatVNNLIB2(t *testing.T) {
	var b strings.Builder
	if err := writeResult(&b, Sat, twoNetWitness()); err != nil {
		t.Fatal(err)
	}
	want := `sat
X_f float32 [2]
0.6000000238418579
-0.5
Y_f float32 [1]
0.3333333432674408
X_g float32 [2]
0.6000000238418579
-0.5
Y_g float32 [1]
0.25
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteResultSatVNNLIB1(t *testing.T) {
	w := &Witness{Syntax: VNNLIB1, Vars: []Var{
		{Name: "X", Type: "real", Shape: []int{2}, Values: []float64{0.1, -2}},
		{Name: "Y", Type: "real", Shape: []int{1}, Values: []float64{1e-300}},
	}}
	var b strings.Builder
	if err := writeResult(&b, Sat, w); err != nil {
		t.Fatal(err)
	}
	want := "sat\n((X_0 0.1)\n (X_1 -2)\n (Y_0 1e-300))\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestWriteResultOtherResultsAreOneLine(t *testing.T) {
	for _, r := range []Result{Unsat, Timeout, Unknown} {
		var b strings.Builder
		if err := writeResult(&b, r, nil); err != nil || b.String() != string(r)+"\n" {
			t.Errorf("%s: wrote %q, %v", r, b.String(), err)
		}
	}
}

// TestWitnessValuesRoundTrip reads the written values back and checks
// they are the float64 values given, bit for bit.
func TestWitnessValuesRoundTrip(t *testing.T) {
	vals := []float64{0.1 + 0.2, math.Nextafter(1, 2), -math.SmallestNonzeroFloat64, math.MaxFloat64, 1.0 / 3, -0.0}
	w := &Witness{Vars: []Var{{Name: "X_f", Type: "real", Shape: []int{2, 3}, Values: vals}}}
	var b strings.Builder
	if err := writeResult(&b, Sat, w); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	sc.Scan() // sat
	sc.Scan()
	if sc.Text() != "X_f real [2,3]" {
		t.Fatalf("header %q", sc.Text())
	}
	for i, v := range vals {
		sc.Scan()
		got, err := strconv.ParseFloat(sc.Text(), 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(v) {
			t.Errorf("value %d: wrote %q for %v", i, sc.Text(), v)
		}
	}
}

func TestWitnessCheck(t *testing.T) {
	ok := Var{Name: "X_f", Type: "real", Shape: []int{2}, Values: []float64{1, 2}}
	with := func(f func(*Var)) *Witness {
		v := ok
		v.Values = append([]float64{}, ok.Values...)
		f(&v)
		return &Witness{Vars: []Var{v}}
	}
	tests := []struct {
		name string
		w    *Witness
		msg  string // "" for a valid witness
	}{
		{"valid", with(func(*Var) {}), ""},
		{"scalar", with(func(v *Var) { v.Shape = nil; v.Values = v.Values[:1] }), ""},
		{"nil", nil, "empty witness"},
		{"no variables", &Witness{}, "empty witness"},
		{"NaN", with(func(v *Var) { v.Values[1] = math.NaN() }), "value 1 is NaN"},
		{"infinite", with(func(v *Var) { v.Values[0] = math.Inf(-1) }), "value 0 is -Inf"},
		{"too few values", with(func(v *Var) { v.Values = v.Values[:1] }), "holds 2 values, got 1"},
		{"zero dimension", with(func(v *Var) { v.Shape = []int{0}; v.Values = nil }), "dimension below 1"},
		{"unknown type", with(func(v *Var) { v.Type = "int8" }), `element type "int8"`},
		{"float32 not representable", with(func(v *Var) { v.Type = "float32"; v.Values[0] = 0.1 }), "0.1 is not a float32"},
		{"name with space", with(func(v *Var) { v.Name = "X f" }), "has spaces"},
		{"empty name", with(func(v *Var) { v.Name = "" }), "is empty"},
		{"same name twice", &Witness{Vars: []Var{ok, ok}}, "X_f given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.w.Check()
			if (tt.msg == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.msg)) {
				t.Errorf("Check() = %v, want %q", err, tt.msg)
			}
		})
	}
}

func TestVet(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		in   Outcome
		msg  string // "" when the outcome is kept as it is
	}{
		{"unsat", Outcome{Result: Unsat}, ""},
		{"sat with witness", Outcome{Result: Sat, Witness: twoNetWitness()}, ""},
		{"timeout with reason", Outcome{Result: Timeout, Err: boom}, ""},
		{"error with reason", Outcome{Result: Error, Err: boom}, ""},
		{"empty result", Outcome{}, `result "" is not`},
		{"holds is not a result", Outcome{Result: "holds"}, `result "holds" is not`},
		{"error without reason", Outcome{Result: Error}, "without a reason"},
		{"unsat with error", Outcome{Result: Unsat, Err: boom}, "unsat with an error: boom"},
		{"sat without witness", Outcome{Result: Sat}, "sat without a counterexample"},
		{"unknown with witness", Outcome{Result: Unknown, Witness: twoNetWitness()}, "unknown with a counterexample"},
		{"sat with NaN", Outcome{Result: Sat, Witness: &Witness{Vars: []Var{{Name: "X", Type: "real", Values: []float64{math.NaN()}}}}}, "malformed counterexample"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Detail = "d"
			got := vet(tt.in)
			if tt.msg == "" {
				if got.Result != tt.in.Result || got.Err != tt.in.Err {
					t.Errorf("vet changed a consistent outcome: %+v", got)
				}
				return
			}
			if got.Result != Error || got.Err == nil || !strings.Contains(got.Err.Error(), tt.msg) || got.Detail != "d" {
				t.Errorf("vet = %+v, want an error with %q keeping the detail", got, tt.msg)
			}
		})
	}
}
