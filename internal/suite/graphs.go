package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
)

// GraphsOptions are the options of the graph suite (bench graphs).
type GraphsOptions struct {
	Dir   string   // folder of the models and their JSON files
	Pairs []string // names of GraphPairs
	Balls int      // balls per pair
	// Measure are the options of each ball: Certify, and Verify, the
	// time limit of the verifications at twice and half the error found
	// (0: none).
	Measure experiment.GraphOptions
}

// DefaultGraphsOptions returns the defaults of bench graphs: every pair,
// ten balls, certify.DefaultOptions and no verification.
func DefaultGraphsOptions() GraphsOptions {
	return GraphsOptions{Dir: filepath.Join("testdata", "graphs"), Balls: 10,
		Pairs:   []string{"digits-ort", "digits-torch", "digits-fb8", "cifar-fb8", "cifar-ort", "cifar-trained-fb8", "cifar-trained-ort"},
		Measure: experiment.GraphOptions{Certify: certify.DefaultOptions()}}
}

// graphPairs are the pairs bench graphs knows: the model, its copy (a file
// of --dir, or "fb8", the model's fixed-point copy with 8 fractional
// bits), the radius of the balls and where their centres come from.
var graphPairs = map[string]struct {
	model, copy, centres string
	radius               float64
}{
	"digits-ort":        {"digits_rescnn", "digits_rescnn_int8_ort", "digits_test.json", 2.0 / 255},
	"digits-torch":      {"digits_rescnn", "digits_rescnn_int8_torch", "digits_test.json", 2.0 / 255},
	"digits-fb8":        {"digits_rescnn", "fb8", "digits_test.json", 2.0 / 255},
	"cifar-fb8":         {"cifar_resnet", "fb8", "cifar_resnet.json", 1.0 / 255},
	"cifar-ort":         {"cifar_resnet", "cifar_resnet_int8_ort", "cifar_resnet.json", 1.0 / 255},
	"cifar-trained-fb8": {"cifar_trained", "fb8", "cifar_trained.json", 1.0 / 255},
	"cifar-trained-ort": {"cifar_trained", "cifar_trained_int8_ort", "cifar_trained.json", 1.0 / 255},
}

// Graphs certifies the pairs of o over their balls and prints the table.
func Graphs(ctx context.Context, stdout, stderr io.Writer, o GraphsOptions) error {
	cpu0 := cputime.Process()
	var rows []*experiment.GraphRow
	var cpus []time.Duration
	for _, name := range o.Pairs {
		p, err := loadGraphPair(o.Dir, name, o.Balls)
		if err != nil {
			return err
		}
		for i := range p.Centres {
			c0 := cputime.Process()
			r, err := p.Measure(ctx, i, o.Measure)
			if err != nil {
				return err
			}
			cpu := cputime.Process() - c0
			fmt.Fprintf(stderr, "bench graphs: %s ball %d: bound %.4g, found %.4g, %.1f s, CPU %.1f s\n", name, i, r.Bound, r.Found, r.Seconds, cpu.Seconds())
			rows, cpus = append(rows, r), append(cpus, cpu)
		}
	}
	return writeGraphs(stdout, rows, cpus, cputime.Process()-cpu0)
}

// loadGraphPair reads the pair called name and the centres of its first
// n balls.
func loadGraphPair(dir, name string, n int) (*experiment.GraphPair, error) {
	spec, ok := graphPairs[name]
	if !ok {
		return nil, UsageError{fmt.Errorf("--pairs: unknown pair %q", name)}
	}
	g, _, _, err := modelfile.LoadGraph(filepath.Join(dir, spec.model+".onnx"), modelfile.Options{})
	if err != nil {
		return nil, err
	}
	var c *nn.Graph
	if spec.copy == "fb8" {
		qo := quantise.DefaultOptions()
		qo.Weights.FracBits, qo.Biases.FracBits = 8, 8
		c, err = quantise.Graph(g, qo)
	} else {
		c, _, _, err = modelfile.LoadGraph(filepath.Join(dir, spec.copy+".onnx"), modelfile.Options{})
	}
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, spec.centres))
	if err != nil {
		return nil, err
	}
	var file struct{ Inputs [][]float64 }
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", spec.centres, err)
	}
	centres := file.Inputs[:min(n, len(file.Inputs))]
	return &experiment.GraphPair{Name: name, F: g, G: c, Centres: centres, Radius: spec.radius, Lo: 0, Hi: 1}, nil
}

// writeGraphs prints the rows with the CPU time of each (cpus), the
// median ratio of each pair, the CPU time and the peak memory.
func writeGraphs(w io.Writer, rows []*experiment.GraphRow, cpus []time.Duration, cpu time.Duration) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "pair\tball\tbound\tfound\tratio\tpieces\ts\tCPU s\tverify 2x\ts\tverify 0.5x\ts")
	ratios := map[string][]float64{}
	var names []string
	for k, r := range rows {
		v2, v5 := "-", "-"
		if r.Verified {
			v2, v5 = r.AtTwice.String(), r.AtHalf.String()
		}
		fmt.Fprintf(tw, "%s\t%d\t%.4g\t%.4g\t%.3g\t%d\t%.1f\t%.1f\t%s\t%.1f\t%s\t%.1f\n", r.Pair, r.Centre, r.Bound, r.Found, r.Ratio,
			r.Pieces, r.Seconds, cpus[k].Seconds(), v2, r.TwiceSeconds, v5, r.HalfSecs)
		if _, ok := ratios[r.Pair]; !ok {
			names = append(names, r.Pair)
		}
		ratios[r.Pair] = append(ratios[r.Pair], r.Ratio)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range names {
		rs := slices.Clone(ratios[n])
		sort.Float64s(rs)
		fmt.Fprintf(w, "%s: median ratio %.3g over %d balls\n", n, rs[len(rs)/2], len(rs))
	}
	_, err := fmt.Fprintf(w, "CPU %.1f s, peak resident memory %.0f MiB (VmHWM)\n", cpu.Seconds(), peakRSS())
	return err
}
