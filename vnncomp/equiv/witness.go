package equiv

import (
	"errors"
	"fmt"

	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnncomp"
	"github.com/nnbound/nnbound/vnnlib"
)

// outcome turns an answer into a VNN-COMP outcome.
func outcome(ans *verify.Answer, ms Models, p *vnnlib.Pair) vnncomp.Outcome {
	r := ans.Result
	o := vnncomp.Outcome{Time: r.Time, Detail: Detail{Verify: r, Aligned: ans.Aligned}}
	switch {
	case r.Status == verify.Holds:
		o.Result = vnncomp.Unsat
	case r.Status == verify.Violated:
		w, err := Witness(ms, p, r.Counterexample.X)
		if err != nil {
			o.Result, o.Err = vnncomp.Unknown, err
			break
		}
		o.Result, o.Witness = vnncomp.Sat, w
	case r.Reason == verify.Timeout:
		o.Result = vnncomp.Timeout
	default:
		o.Result, o.Err = vnncomp.Unknown, errors.New(r.Reason.String())
	}
	return o
}

// Witness returns the VNN-COMP witness of the input x: X_f, Y_f, X_g,
// Y_g in declaration order, x rounded to its declared type and f and g
// evaluated there. It is an error if the rounded x leaves the box, a
// declared type cannot be written, or the point does not violate p
// (verify.CheckPointModels: the violation must survive the rounding of
// the evaluation).
func Witness(ms Models, p *vnnlib.Pair, x []float64) (*vnncomp.Witness, error) {
	xr, err := round(x, p.F.Input.Type)
	if err != nil {
		return nil, err
	}
	if !p.Box.Contains(xr) {
		return nil, errors.New("equiv: the counterexample rounded to the input type leaves the box")
	}
	pt, s, err := verify.CheckPointModels(ms.F, ms.G, ms.FC, ms.GC, xr, xr, verify.PropertyCriterion(&p.Property))
	if err != nil {
		return nil, err
	}
	if s != verify.Violated {
		return nil, errors.New("equiv: the counterexample does not violate the property on the networks as read")
	}
	return witness2(p, xr, pt.F, xr, pt.G)
}

// round returns x rounded to the element type t (nil for nil).
func round(x []float64, t string) ([]float64, error) {
	if x == nil {
		return nil, nil
	}
	out := append([]float64(nil), x...)
	switch t {
	case "real", "float64":
	case "float32":
		for i, v := range out {
			out[i] = float64(float32(v))
		}
	default:
		return nil, fmt.Errorf("equiv: cannot write a witness of element type %s", t)
	}
	return out, nil
}
