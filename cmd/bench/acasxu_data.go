package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/nnbound/nnbound/internal/shared"
)

// acasInstance is one instance of the peers' ACAS Xu float16 benchmark:
// bound |f'_t(x) - f_t(x)| for x in the normalised box of a property, f the
// ACAS Xu network Net and f' its 16-bit copy as the peers shipped it.
type acasInstance struct {
	Prop   string
	Net    string
	Target int
	// Lo, Hi is the normalised box (the float64 formula of properties.json).
	Lo, Hi []float64
	// F and FPrime are the paths of f and f'.
	F, FPrime string
	// NeuroDiff and ReluDiffPlus are the tools' first-pass bounds on
	// |f'_t - f_t| over the whole box (their eps = 0.05 runs); NaN if the
	// reference results have no such row.
	NeuroDiff, ReluDiffPlus float64
	// FoundTSV is the largest |f'_t - f_t| the data's own search attained
	// (empirical-lower-bounds.tsv, shipped f'); NaN if absent. That search
	// used float32-rounded weights and the float32 box.
	FoundTSV float64
}

// acasProperty is what properties.json says about one property.
type acasProperty struct {
	Target int       `json:"target_output"`
	Lo     []float64 `json:"normalised_lower_f64"`
	Hi     []float64 `json:"normalised_upper_f64"`
	Nets   []string  `json:"nets"`
	Run    bool      `json:"run_in_experiments"`
}

// loadACAS returns the instances of properties props restricted to nets
// (all of a property's nets when nets is empty), property by property in
// the order of props, from the benchmark folder dir.
func loadACAS(dir string, props, nets []string) ([]*acasInstance, error) {
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
	firstPass, err := readFirstPass(filepath.Join(dir, "reference-results.tsv"))
	if err != nil {
		return nil, err
	}
	found, err := readFound(filepath.Join(dir, "empirical-lower-bounds.tsv"))
	if err != nil {
		return nil, err
	}
	var out []*acasInstance
	used := map[string]bool{}
	for _, p := range props {
		prop, ok := doc.Properties[p]
		if !ok || !prop.Run {
			return nil, usageError{fmt.Errorf("--props: property %s is not one the peers ran (see properties.json)", p)}
		}
		if len(prop.Lo) != 5 || len(prop.Hi) != 5 {
			return nil, fmt.Errorf("%s: property %s: box of %d and %d entries, want 5", pj, p, len(prop.Lo), len(prop.Hi))
		}
		for _, net := range prop.Nets {
			if len(nets) > 0 && !slices.Contains(nets, net) {
				continue
			}
			used[net] = true
			name := "ACASXU_run2a_" + net + "_batch_2000"
			key := p + "/" + net
			out = append(out, &acasInstance{Prop: p, Net: net, Target: prop.Target, Lo: prop.Lo, Hi: prop.Hi,
				F:         filepath.Join(dir, "acasxu-f16", "nnet", name+".nnet"),
				FPrime:    filepath.Join(dir, "acasxu-f16", "compressed_nnets", name+"_16bit.nnet"),
				NeuroDiff: valueOr(firstPass, key+"/NeuroDiff"), ReluDiffPlus: valueOr(firstPass, key+"/ReluDiff+"),
				FoundTSV: valueOr(found, key)})
		}
	}
	for _, net := range nets {
		if !used[net] {
			return nil, usageError{fmt.Errorf("--nets: net %s is in none of the properties %v", net, props)}
		}
	}
	return out, nil
}

// readFirstPass returns firstpass_abs of the ACAS Xu rows at eps 0.05 of
// reference-results.tsv, keyed "prop/net/tool".
func readFirstPass(path string) (map[string]float64, error) {
	return readColumn(path, "firstpass_abs",
		func(r map[string]string) bool { return r["suite"] == "acasxu-f16" && r["eps"] == "0.05" },
		func(r map[string]string) string { return r["prop"] + "/" + r["net"] + "/" + r["tool"] })
}

// readFound returns abs_max_found of the ACAS Xu rows for the shipped f'
// of empirical-lower-bounds.tsv, keyed "prop/net".
func readFound(path string) (map[string]float64, error) {
	return readColumn(path, "abs_max_found",
		func(r map[string]string) bool { return r["suite"] == "acasxu-f16" && r["fprime"] == "shipped" },
		func(r map[string]string) string { return r["prop"] + "/" + r["net"] })
}

// readColumn returns the numbers in column col of the rows of the TSV file
// path that keep accepts, keyed by key.
func readColumn(path, col string, keep func(map[string]string) bool, key func(map[string]string) string) (map[string]float64, error) {
	rows, err := readTSV(path)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, r := range rows {
		if !keep(r) {
			continue
		}
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %s %q: %w", path, key(r), col, r[col], err)
		}
		out[key(r)] = v
	}
	return out, nil
}

// valueOr returns m[key], or NaN when absent.
func valueOr(m map[string]float64, key string) float64 {
	if v, ok := m[key]; ok {
		return v
	}
	return math.NaN()
}

// acasDataDir returns the peers' benchmark folder for the bench command
// name: dir when given, else the shared folder's data/benchmarks. ok is
// false when there is nothing to do: with an error when a given dir has no
// properties.json, with a note on stderr when no folder was found.
func acasDataDir(name, dir string, dirGiven bool, stderr io.Writer) (string, bool, error) {
	if dir == "" && !dirGiven {
		if root := shared.Root(); root != "" {
			dir = filepath.Join(root, "data", "benchmarks")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "properties.json")); dir == "" || err != nil {
		if dirGiven {
			return "", false, fmt.Errorf("--data %s: no properties.json there", dir)
		}
		fmt.Fprintf(stderr, "bench %s: shared benchmark folder not found (set NNBOUND_SHARED or --data); nothing to do\n", name)
		return "", false, nil
	}
	return dir, true, nil
}
