package main

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/search"
)

// What a certificate bounds depends on its options: the 2-norm of the
// output difference d = f1(x1) - f2(x2) (the paper's), its inf-norm
// max_k |d_k| (--norm inf), or one output's |d_K| (--output K, a one-hot
// Options.C; any other C gives |c^T d|). The functions below name it, for
// the text and JSON outputs, and evaluate it, for the figures.

// oneHot returns K when c is the K-th unit vector, or -1.
func oneHot(c []float64) int {
	k := -1
	for i, v := range c {
		switch {
		case v == 0:
		case v == 1 && k < 0:
			k = i
		default:
			return -1
		}
	}
	return k
}

// quantityName returns what the bound of a certificate made with o bounds,
// as "||f1(x1) - f2(x2)||_2", "||f1(x1) - f2(x2)||_inf" or
// "|f1_K(x1) - f2_K(x2)|".
func quantityName(o certify.Options) string { return nameOf(o, "(x1)", "(x2)", "_2") }

// axisName returns it in a figure's words: "||f1 - f2||",
// "||f1 - f2||_inf" or "|f1_K - f2_K|".
func axisName(o certify.Options) string { return nameOf(o, "", "", "") }

// nameOf writes the quantity bounded under o with the arguments x1 and x2
// of the networks and the suffix two of the 2-norm.
func nameOf(o certify.Options, x1, x2, two string) string {
	switch k := oneHot(o.C); {
	case k >= 0:
		return fmt.Sprintf("|f1_%d%s - f2_%d%s|", k, x1, k, x2)
	case o.C != nil:
		return fmt.Sprintf("|c^T (f1%s - f2%s)|", x1, x2)
	case o.Norm == search.NormInf:
		return fmt.Sprintf("||f1%s - f2%s||_inf", x1, x2)
	}
	return fmt.Sprintf("||f1%s - f2%s||%s", x1, x2, two)
}

// squareName returns the left-hand side of the gammas' inequality of c:
// the square of what the gammas bound. For the inf-norm over several
// outputs, the gammas are those of the output with the largest bound.
func squareName(c *certify.Certificate, o certify.Options) string {
	switch k := oneHot(o.C); {
	case k >= 0:
		return fmt.Sprintf("(f1_%d - f2_%d)^2", k, k)
	case o.C != nil:
		return "(c^T (f1 - f2))^2"
	case o.Norm == search.NormInf && len(c.Outputs) > 1:
		k := worstOutput(c)
		return fmt.Sprintf("(f1_%d - f2_%d)^2", k, k)
	}
	return "||f1 - f2||^2"
}

// worstOutput returns the output with the largest bound of an inf-norm
// certificate (the first of equals), whose gammas the certificate holds.
func worstOutput(c *certify.Certificate) int {
	k := 0
	for j, b := range c.Outputs {
		if b > c.Outputs[k] {
			k = j
		}
	}
	return k
}

// errorOf returns the quantity bounded under o at outputs y1 and y2 (as
// certify measures the observed error, which it does not export).
func errorOf(y1, y2 []float64, o certify.Options) float64 {
	var s float64
	for i := range y1 {
		d := y1[i] - y2[i]
		switch {
		case o.C != nil:
			s += o.C[i] * d
		case o.Norm == search.NormInf:
			s = max(s, math.Abs(d))
		default:
			s += d * d
		}
	}
	switch {
	case o.C != nil:
		return math.Abs(s)
	case o.Norm == search.NormInf:
		return s
	}
	return math.Sqrt(s)
}
