package benchdata

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// WideSuites are the HAR and MNIST suites: the name on bench's command
// line and the suite of reference-results.tsv.
var WideSuites = map[string]string{"har": "har-f16", "mnist-global": "mnist-f16-global", "mnist-3pix": "mnist-f16-3pix"}

// WideInstance is one instance of the peers' HAR or MNIST float16
// benchmark: prove -Eps < f'_t(x) - f_t(x) < Eps for x in the box [Lo, Hi].
type WideInstance struct {
	Net    string // the network's name in reference-results.tsv
	Prop   int    // the test index i (instance 1000+i for HAR, 400+i for MNIST)
	Target int
	Eps    float64
	Lo, Hi []float64
	// NeuroDiff is the tool's first-pass bound on |f'_t - f_t| (firstpass_abs),
	// NeuroDiffTime its time to prove the instance (time_s); NaN if absent.
	NeuroDiff, NeuroDiffTime float64
	// Found is the largest |f'_t - f_t| the data's own search attained
	// (empirical-lower-bounds.tsv; NaN if absent): a sound bound is at
	// least as large. That search used float32-rounded weights.
	Found float64
}

// WideNets returns the networks of suite's NeuroDiff rows in
// reference-results.tsv of the folder dir, in their order there (HAR;
// mnist_relu_3_100, mnist_relu_2_512, mnist_relu_4_1024).
func WideNets(dir, suite string) ([]string, error) {
	rows, err := ReadTSV(filepath.Join(dir, "reference-results.tsv"))
	if err != nil {
		return nil, err
	}
	var nets []string
	for _, r := range rows {
		if r["suite"] == WideSuites[suite] && r["tool"] == "NeuroDiff" && !slices.Contains(nets, r["net"]) {
			nets = append(nets, r["net"])
		}
	}
	return nets, nil
}

// WideFiles returns the paths of f and f' (its 16-bit copy) of the
// network net of a suite in the folder dir.
func WideFiles(dir, suite, net string) (f, fp string) {
	sub := "mnist"
	if suite == "har" {
		sub = "har"
	}
	return filepath.Join(dir, sub, net+".nnet"), filepath.Join(dir, sub, net+"_16bit.nnet")
}

// LoadWide returns the first limit instances of suite (all for limit <= 0)
// on the network net from the benchmark folder dir. Boxes are computed as
// the peers' C code does, in float32 (har_tests.json and mnist_tests.json,
// "float_semantics"); every network of a suite has the same boxes.
func LoadWide(dir, suite, net string, limit int) ([]*WideInstance, error) {
	var insts []*WideInstance
	var err error
	switch suite {
	case "har":
		insts, err = loadHAR(filepath.Join(dir, "har", "har_tests.json"))
	case "mnist-global", "mnist-3pix":
		insts, err = loadMNIST(filepath.Join(dir, "mnist", "mnist_tests.json"), suite == "mnist-global")
	default:
		return nil, fmt.Errorf("benchdata: suite %q: want har, mnist-global or mnist-3pix", suite)
	}
	if err != nil {
		return nil, err
	}
	if limit > 0 && limit < len(insts) {
		insts = insts[:limit]
	}
	rp := filepath.Join(dir, "reference-results.tsv")
	keep := func(r map[string]string) bool {
		return r["suite"] == WideSuites[suite] && r["tool"] == "NeuroDiff" && r["net"] == net
	}
	key := func(r map[string]string) string { return r["prop"] }
	first, err := Column(rp, "firstpass_abs", keep, key)
	if err != nil {
		return nil, err
	}
	times, err := Column(rp, "time_s", keep, key)
	if err != nil {
		return nil, err
	}
	found, err := Column(filepath.Join(dir, "empirical-lower-bounds.tsv"), "abs_max_found",
		func(r map[string]string) bool {
			return r["suite"] == WideSuites[suite] && r["net"] == net &&
				(suite != "mnist-3pix" || strings.Contains(r["fprime"], "random_pixels_neurodiff"))
		}, key)
	if err != nil {
		return nil, err
	}
	for _, in := range insts {
		k := strconv.Itoa(in.Prop)
		in.Net = net
		in.NeuroDiff, in.NeuroDiffTime, in.Found = valueOr(first, k), valueOr(times, k), valueOr(found, k)
	}
	return insts, nil
}

// loadHAR reads the HAR instances: the box [max(x-0.1, -1), min(x+0.1, 1)]
// with the sums in float32.
func loadHAR(path string) ([]*WideInstance, error) {
	var doc struct {
		Labels []int       `json:"labels"`
		Inputs [][]float64 `json:"inputs"`
		Eps    float64     `json:"epsilon"`
	}
	if err := readJSON(path, &doc); err != nil {
		return nil, err
	}
	if len(doc.Labels) != len(doc.Inputs) {
		return nil, fmt.Errorf("%s: %d labels for %d inputs", path, len(doc.Labels), len(doc.Inputs))
	}
	out := make([]*WideInstance, len(doc.Inputs))
	for i, x := range doc.Inputs {
		in := &WideInstance{Prop: i, Target: doc.Labels[i], Eps: doc.Eps, Lo: make([]float64, len(x)), Hi: make([]float64, len(x))}
		for j, v := range x {
			xf := float32(v)
			in.Lo[j] = float64(float32(math.Max(float64(xf-0.1), -1)))
			in.Hi[j] = float64(float32(math.Min(float64(xf+0.1), 1)))
		}
		out[i] = in
	}
	return out, nil
}

// loadMNIST reads the MNIST instances: the global box of perturbation 3
// (global) or the NeuroDiff table's first 3 random pixels free in [0, 1].
func loadMNIST(path string, global bool) ([]*WideInstance, error) {
	var doc struct {
		Labels []int       `json:"labels"`
		Images [][]float64 `json:"images"`
		Pixels [][]int     `json:"random_pixels_neurodiff"`
		Eps    float64     `json:"epsilon"`
	}
	if err := readJSON(path, &doc); err != nil {
		return nil, err
	}
	if len(doc.Labels) != len(doc.Images) || len(doc.Pixels) != len(doc.Images) {
		return nil, fmt.Errorf("%s: %d labels and %d pixel rows for %d images", path, len(doc.Labels), len(doc.Pixels), len(doc.Images))
	}
	out := make([]*WideInstance, len(doc.Images))
	for i, img := range doc.Images {
		in := &WideInstance{Prop: i, Target: doc.Labels[i], Eps: doc.Eps, Lo: make([]float64, len(img)), Hi: make([]float64, len(img))}
		for j, p := range img {
			if global {
				in.Lo[j] = float64(float32(math.Max((p-3)/255, 0)))
				in.Hi[j] = float64(float32(math.Min((p+3)/255, 1)))
			} else {
				in.Lo[j] = float64(float32(p / 255))
				in.Hi[j] = in.Lo[j]
			}
		}
		if !global {
			for _, j := range doc.Pixels[i][:min(3, len(doc.Pixels[i]))] {
				if j < 0 || j >= len(img) {
					return nil, fmt.Errorf("%s: image %d: random pixel %d out of range", path, i, j)
				}
				in.Lo[j], in.Hi[j] = 0, 1
			}
		}
		out[i] = in
	}
	return out, nil
}

// readJSON decodes the JSON file path into v.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
