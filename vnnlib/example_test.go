package vnnlib_test

import (
	"fmt"
	"strings"

	"github.com/nnbound/nnbound/vnnlib"
)

func ExampleRead() {
	const prop = `; two inputs, one output
(declare-const X_0 Real)
(declare-const X_1 Real)
(declare-const Y_0 Real)
(assert (<= X_0 0.5))
(assert (>= X_0 -0.5))
(assert (and (<= 0 X_1) (<= X_1 1)))
(assert (>= Y_0 3))`
	spec, err := vnnlib.Read(strings.NewReader(prop), "prop.vnnlib")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(spec.Box.Lo, spec.Box.Hi)
	fmt.Println(spec.Note())

	_, err = vnnlib.Read(strings.NewReader("(declare-const X_0 Real)\n(assert (or (<= X_0 0) (>= X_0 1)))"), "bad.vnnlib")
	fmt.Println(err)
	// Output:
	// [-0.5 0] [0.5 1]
	// ignored 1 assertion on the outputs Y_j (only the input box is read)
	// bad.vnnlib:2: disjunction (or ...) over inputs is not supported: the input set must be one box
}

func ExampleReadPair() {
	const prop = `(vnnlib-version <2.0>)
(declare-network f (declare-input X_f real [2]) (declare-output Y_f real [1]))
(declare-network g (isomorphic-to f) (declare-input X_g real [2]) (declare-output Y_g real [1]))
(assert (and (<= 0 X_f[0] 1) (<= -1 X_f[1] 1)))
(assert (and (== X_f[0] X_g[0]) (== X_f[1] X_g[1])))
(assert (and (<= Y_g[0] (+ Y_f[0] 0.05)) (>= Y_g[0] (- Y_f[0] 0.05))))`
	pair, err := vnnlib.ReadPair(strings.NewReader(prop), "eq.vnnlib")
	if err != nil {
		fmt.Println(err)
		return
	}
	eps, _ := pair.Outputs[0].Eps()
	fmt.Println(pair.Box.Lo, pair.Box.Hi, pair.Same, eps)
	fmt.Println(pair.Outputs[0].Holds(1.06 - 1))
	// Output:
	// [0 -1] [1 1] true 0.05
	// false
}
