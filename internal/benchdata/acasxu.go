// Package benchdata reads the shared benchmark folder (data/benchmarks of
// the shared folder): the peers' ACAS Xu, HAR and MNIST float16 instances
// of ReluDiff and NeuroDiff, with the peers' results and the largest
// differences the data's own search attained. It is the one loader of
// these instances, for cmd/bench's suites and for the tests (through
// bounds/boundstest).
package benchdata

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/nnet"
)

// ErrUnknown is wrapped by the errors of LoadACAS naming a property the
// peers did not run or a net of none of the properties asked for: a
// mistake of the caller rather than of the data.
var ErrUnknown = errors.New("benchdata: unknown ACAS Xu instance")

// Box chooses which normalised box of properties.json an ACASInstance
// carries.
type Box int

const (
	// Float64 is the box by the float64 formula (normalised_*_f64).
	Float64 Box = iota
	// Float32 is the float32 box the peers' tools computed (normalised_*),
	// which the data's own search sampled.
	Float32
)

// ACASInstance is one instance of the peers' ACAS Xu float16 benchmark:
// bound |f'_t(x) - f_t(x)| for x in the normalised box of a property, f the
// ACAS Xu network Net and f' its 16-bit copy as the peers shipped it.
type ACASInstance struct {
	Prop   string
	Net    string
	Target int
	// Lo, Hi is the normalised box (see Box).
	Lo, Hi []float64
	// F and FPrime are the paths of f and f'.
	F, FPrime string
	// NeuroDiff and ReluDiffPlus are the tools' first-pass bounds on
	// |f'_t - f_t| over the whole box (their eps = 0.05 runs); NaN if the
	// reference results have no such row.
	NeuroDiff, ReluDiffPlus float64
	// FoundTSV is the largest |f'_t - f_t| the data's own search attained
	// (empirical-lower-bounds.tsv, shipped f'), and AttainedLo, AttainedHi
	// the extremes of f'_t - f_t it found (lower bounds of the true
	// extremes); NaN if absent. That search used float32-rounded weights
	// and the float32 box.
	FoundTSV               float64
	AttainedLo, AttainedHi float64
}

// Networks reads the instance's core networks f and f'.
func (a *ACASInstance) Networks() (f, fPrime *nn.Network, err error) {
	return readPair(a.F, a.FPrime)
}

// ACASNetworks reads the core networks f and f' (its 16-bit copy) of the
// ACAS Xu net i_j from the benchmark folder dir.
func ACASNetworks(dir, net string) (f, fPrime *nn.Network, err error) {
	return readPair(acasFiles(dir, net))
}

// readPair reads the core networks of the NNet files fPath and fpPath.
func readPair(fPath, fpPath string) (f, fPrime *nn.Network, err error) {
	if f, _, err = nnet.Read(fPath, nnet.Options{Core: true}); err != nil {
		return nil, nil, err
	}
	if fPrime, _, err = nnet.Read(fpPath, nnet.Options{Core: true}); err != nil {
		return nil, nil, err
	}
	return f, fPrime, nil
}

// acasFiles returns the paths of the ACAS Xu net i_j and of its 16-bit
// copy in the benchmark folder dir.
func acasFiles(dir, net string) (f, fPrime string) {
	name := "ACASXU_run2a_" + net + "_batch_2000"
	return filepath.Join(dir, "acasxu-f16", "nnet", name+".nnet"),
		filepath.Join(dir, "acasxu-f16", "compressed_nnets", name+"_16bit.nnet")
}

// acasProperty is what properties.json says about one property.
type acasProperty struct {
	Target int       `json:"target_output"`
	Lo     []float64 `json:"normalised_lower_f64"`
	Hi     []float64 `json:"normalised_upper_f64"`
	Lo32   []float64 `json:"normalised_lower"`
	Hi32   []float64 `json:"normalised_upper"`
	Nets   []string  `json:"nets"`
	Run    bool      `json:"run_in_experiments"`
}

// LoadACAS returns the instances of properties props restricted to nets
// (all of a property's nets when nets is empty), property by property in
// the order of props and each property's nets in the order of
// properties.json, from the benchmark folder dir, with the box box.
func LoadACAS(dir string, props, nets []string, box Box) ([]*ACASInstance, error) {
	pj := filepath.Join(dir, "properties.json")
	data, err := os.ReadFile(pj)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Properties map[string]acasProperty `json:"properties"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", pj, err)
	}
	first, err := Column(filepath.Join(dir, "reference-results.tsv"), "firstpass_abs",
		func(r map[string]string) bool { return r["suite"] == "acasxu-f16" && r["eps"] == "0.05" },
		func(r map[string]string) string { return r["prop"] + "/" + r["net"] + "/" + r["tool"] })
	if err != nil {
		return nil, err
	}
	found := map[string]map[string]float64{}
	for _, col := range []string{"abs_max_found", "delta_min_found", "delta_max_found"} {
		found[col], err = Column(filepath.Join(dir, "empirical-lower-bounds.tsv"), col,
			func(r map[string]string) bool { return r["suite"] == "acasxu-f16" && r["fprime"] == "shipped" },
			func(r map[string]string) string { return r["prop"] + "/" + r["net"] })
		if err != nil {
			return nil, err
		}
	}
	var out []*ACASInstance
	used := map[string]bool{}
	for _, p := range props {
		prop, ok := doc.Properties[p]
		if !ok || !prop.Run {
			return nil, fmt.Errorf("%w: property %s is not one the peers ran (see properties.json)", ErrUnknown, p)
		}
		lo, hi := prop.Lo, prop.Hi
		if box == Float32 {
			lo, hi = prop.Lo32, prop.Hi32
		}
		if len(lo) != 5 || len(hi) != 5 {
			return nil, fmt.Errorf("%s: property %s: box of %d and %d entries, want 5", pj, p, len(lo), len(hi))
		}
		for _, net := range prop.Nets {
			if len(nets) > 0 && !slices.Contains(nets, net) {
				continue
			}
			used[net] = true
			key := p + "/" + net
			inst := &ACASInstance{Prop: p, Net: net, Target: prop.Target, Lo: lo, Hi: hi,
				NeuroDiff: valueOr(first, key+"/NeuroDiff"), ReluDiffPlus: valueOr(first, key+"/ReluDiff+"),
				FoundTSV: valueOr(found["abs_max_found"], key), AttainedLo: valueOr(found["delta_min_found"], key),
				AttainedHi: valueOr(found["delta_max_found"], key)}
			inst.F, inst.FPrime = acasFiles(dir, net)
			out = append(out, inst)
		}
	}
	for _, net := range nets {
		if !used[net] {
			return nil, fmt.Errorf("%w: net %s is in none of the properties %v", ErrUnknown, net, props)
		}
	}
	return out, nil
}
