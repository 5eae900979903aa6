package equiv

import (
	"context"
	"errors"
	"fmt"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnncomp"
	"github.com/nnbound/nnbound/vnnlib"
)

// RelationalDetail is what the log records for a relational or VNN-LIB 1
// row.
type RelationalDetail struct {
	Verify *verify.RelationalResult `json:"verify_relational,omitempty"`
}

// decideRelational decides a row whose property is relational (a VNN-LIB
// 2.0 file outside the equivalence subset) or of one network (VNN-LIB 1)
// with verify.DecideRelational. For (equal-to f), g is f's network.
func decideRelational(ctx context.Context, in vnncomp.Instance, prop *vnnlib.Property, opts Options) vnncomp.Outcome {
	var r *spec.Relational
	var f, g *nn.Network
	var err error
	if prop.Spec != nil {
		if r, err = prop.Spec.Relational(); err == nil {
			f, err = loadOne(in)
		}
	} else {
		r = prop.Pair.Relational
		f, g, err = loadPairNets(in, prop.Pair)
	}
	if err != nil {
		return vnncomp.Outcome{Result: vnncomp.Error, Err: err}
	}
	res, err := verify.DecideRelational(ctx, f, g, r, &opts.Verify)
	if errors.Is(err, verify.ErrPairUnsupported) {
		return vnncomp.Outcome{Result: vnncomp.Unknown, Err: err}
	}
	if err != nil {
		return vnncomp.Outcome{Result: vnncomp.Error, Err: err}
	}
	o := vnncomp.Outcome{Time: res.Time, Detail: RelationalDetail{Verify: res}}
	switch {
	case res.Status == verify.Holds:
		o.Result = vnncomp.Unsat
	case res.Status == verify.Violated:
		w, err := RelationalWitness(f, g, prop, res.Counterexample)
		if err != nil {
			o.Result, o.Err = vnncomp.Unknown, err
			break
		}
		o.Result, o.Witness = vnncomp.Sat, w
	case res.Reason == verify.Timeout:
		o.Result = vnncomp.Timeout
	default:
		o.Result, o.Err = vnncomp.Unknown, errors.New(res.Reason.String())
	}
	return o
}

// loadOne loads the one network of a VNN-LIB 1 row.
func loadOne(in vnncomp.Instance) (*nn.Network, error) {
	if len(in.Networks) != 1 {
		return nil, fmt.Errorf("equiv: row %d names %d networks for a VNN-LIB 1 property, want 1", in.Index, len(in.Networks))
	}
	return loadChain(in.Networks[0].Path)
}

// loadChain reads the network at path; a computation graph that is not a
// chain of layers is an error saying what decides graphs instead.
func loadChain(path string) (*nn.Network, error) {
	f, _, err := modelfile.Load(path, modelfile.Options{})
	if errors.Is(err, onnx.ErrNotChain) {
		return nil, fmt.Errorf("%w; VNN-LIB 1 and relational instances are decided for chains of layers so far (two-network equivalence instances take graphs)", err)
	}
	return f, err
}

// loadPairNets loads f and g of a relational row, matched by name; under
// (equal-to f) g is f, and the row may name f alone.
func loadPairNets(in vnncomp.Instance, p *vnnlib.Pair) (*nn.Network, *nn.Network, error) {
	if p.G.EqualTo == "" || len(in.Networks) != 1 {
		_, ms, err := loadNets(in, p)
		switch {
		case err != nil:
			return nil, nil, err
		case ms.FC == nil || ms.GC == nil:
			return nil, nil, fmt.Errorf("equiv: row %d: %w; relational properties are decided for chains of layers so far", in.Index, onnx.ErrNotChain)
		case p.G.EqualTo == "":
			return ms.FC, ms.GC, nil
		}
		return ms.FC, ms.FC, nil
	}
	if n := in.Networks[0].Name; n != "" && n != p.F.Name {
		return nil, nil, fmt.Errorf("equiv: row %d names network %q, the property declares %q", in.Index, n, p.F.Name)
	}
	f, err := loadOne(in)
	if err != nil {
		return nil, nil, err
	}
	return f, f, p.CheckNetworks(f, f)
}

// RelationalWitness returns the VNN-COMP witness of the counterexample
// pt: for VNN-LIB 1 the inputs X and outputs Y of the one network, for
// VNN-LIB 2.0 X_f, Y_f, X_g, Y_g in declaration order. Inputs are rounded
// to their declared types and the point is checked again there
// (verify.CheckRelational); it is an error if it no longer violates the
// property or leaves its input set.
func RelationalWitness(f, g *nn.Network, prop *vnnlib.Property, pt *verify.RelationalPoint) (*vnncomp.Witness, error) {
	if prop.Spec != nil {
		r, err := prop.Spec.Relational()
		if err != nil {
			return nil, err
		}
		p, s, err := verify.CheckRelational(f, nil, pt.XF, nil, r)
		if err != nil {
			return nil, err
		}
		if s != verify.Violated {
			return nil, errors.New("equiv: the counterexample does not violate the property on the network as read")
		}
		w := &vnncomp.Witness{Syntax: vnncomp.VNNLIB1, Vars: []vnncomp.Var{
			{Name: "X", Type: "real", Shape: []int{len(p.XF)}, Values: p.XF},
			{Name: "Y", Type: "real", Shape: []int{len(p.F)}, Values: p.F}}}
		return w, w.Check()
	}
	pr := prop.Pair
	xf, err := round(pt.XF, pr.F.Input.Type)
	if err != nil {
		return nil, err
	}
	xg, err := round(pt.XG, pr.G.Input.Type)
	if err != nil {
		return nil, err
	}
	p, s, err := verify.CheckRelational(f, g, xf, xg, pr.Relational)
	if err != nil {
		return nil, err
	}
	if s != verify.Violated {
		return nil, errors.New("equiv: the counterexample rounded to the input types does not violate the property, or leaves its input set")
	}
	return witness2(pr, p.XF, p.F, p.XG, p.G)
}

// witness2 returns the VNN-LIB 2.0 witness of the values of X_f, Y_f,
// X_g and Y_g, each rounded to its declared type.
func witness2(p *vnnlib.Pair, xf, yf, xg, yg []float64) (*vnncomp.Witness, error) {
	w := &vnncomp.Witness{Syntax: vnncomp.VNNLIB2}
	for _, v := range []struct {
		t vnnlib.Tensor
		x []float64
	}{{p.F.Input, xf}, {p.F.Output, yf}, {p.G.Input, xg}, {p.G.Output, yg}} {
		vals, err := round(v.x, v.t.Type)
		if err != nil {
			return nil, err
		}
		w.Vars = append(w.Vars, vnncomp.Var{Name: v.t.Name, Type: v.t.Type, Shape: v.t.Shape, Values: vals})
	}
	return w, w.Check()
}
