package bounds

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestGraphLong measures GraphPair on residual CNNs against a perturbed
// copy (relative 1e-3), and on the CIFAR-shaped ResNet of testdata/graphs
// against its FB-8 and its ONNX Runtime int8 copies (an L-inf ball of
// 1/255 around its first test input, clipped to [0, 1]): the time, the
// memory allocated, and the bounds of ||g2(x) - g1(x)|| against the
// largest difference found by sampling. It runs only with NNBOUND_LONG=1
// and reports figures without asserting on them; NNBOUND_GRAPH_MODELS
// picks models (small,cifar1,cifar,cifar-fb8,cifar-ort,trained-fb8,trained-ort;
// default small; trained-*: testdata/graphs/cifar_trained),
// NNBOUND_GRAPH_METHODS methods
// (interval,window1,window2,backsub,backsub8 (batches of 8 rows),adaptive,weights,combined,float32,
// optimised (backsub with 4 steps of optimised lines on the output's rows),
// planar (backsub with the output's margins in 8 directions of each plane of two outputs)),
// NNBOUND_GRAPH_INPUT the test input of the CIFAR models (default 0),
// and NNBOUND_GRAPH_LOG=1 logs each value bounded.
func TestGraphLong(t *testing.T) {
	if os.Getenv("NNBOUND_LONG") != "1" {
		t.Skip("set NNBOUND_LONG=1 to measure")
	}
	synthetic := func(c, h, w int, widths []int, eps float64) func(*rand.Rand) graphLongPair {
		return func(rng *rand.Rand) graphLongPair {
			g1 := residualCNN(rng, c, h, w, widths)
			return graphLongPair{g1: g1, g2: perturbed(rng, g1, 1e-3), eps: eps}
		}
	}
	models := map[string]func(*rand.Rand) graphLongPair{
		"small":       synthetic(1, 8, 8, []int{16, 16}, 2.0/255),
		"cifar1":      synthetic(3, 32, 32, []int{16}, 1.0/255), // the stem and first stage of cifar
		"cifar":       synthetic(3, 32, 32, []int{16, 32, 64}, 1.0/255),
		"cifar-fb8":   func(*rand.Rand) graphLongPair { return cifarPair(t, "cifar_resnet", "fb8") },
		"cifar-ort":   func(*rand.Rand) graphLongPair { return cifarPair(t, "cifar_resnet", "cifar_resnet_int8_ort.onnx") },
		"trained-fb8": func(*rand.Rand) graphLongPair { return cifarPair(t, "cifar_trained", "fb8") },
		"trained-ort": func(*rand.Rand) graphLongPair { return cifarPair(t, "cifar_trained", "cifar_trained_int8_ort.onnx") },
	}
	methods := map[string]GraphOptions{
		"interval":  {Intermediate: IntermediateInterval, Batch: 16},
		"window1":   {Intermediate: IntermediateWindow, Window: 1, Batch: 16},
		"window2":   {Intermediate: IntermediateWindow, Window: 2, Batch: 16},
		"backsub":   {Intermediate: IntermediateBacksub, Batch: 16},
		"backsub8":  {Intermediate: IntermediateBacksub, Batch: 8},
		"adaptive":  {Intermediate: IntermediateAdaptive, Window: 1, Batch: 16},
		"weights":   {Intermediate: IntermediateBacksub, Batch: 16, IntervalWeightTerms: true},
		"combined":  {Intermediate: IntermediateBacksub, Batch: 16, Combined: true},
		"float32":   {Intermediate: IntermediateBacksub, Batch: 16, Float32: true},
		"planar":    {Intermediate: IntermediateBacksub, Batch: 16, Planar: 8},
		"optimised": {Intermediate: IntermediateBacksub, Batch: 16, Optimise: OptimiseSettings{Iterations: 4, Step: 0.2}},
	}
	for _, name := range envList("NNBOUND_GRAPH_MODELS", "small") {
		rng := rand.New(rand.NewPCG(2026, 12))
		p := models[name](rng)
		g1, g2, eps, centre := p.g1, p.g2, p.eps, p.centre
		if centre == nil {
			centre = make([]float64, g1.InputSize())
			for i := range centre {
				centre[i] = rng.Float64()
			}
		}
		box := spec.Box{Lo: make([]float64, len(centre)), Hi: make([]float64, len(centre))}
		for i, c := range centre {
			box.Lo[i], box.Hi[i] = c-eps, c+eps
			if p.clip {
				box.Lo[i], box.Hi[i] = max(box.Lo[i], 0), min(box.Hi[i], 1)
			}
		}
		found2, foundInf := sampledDiff(rng, g1, g2, box, 300)
		t.Logf("%s: %d parameters, %d inputs, eps %.4g; sampled ||d||_2 %.4g, ||d||_inf %.4g",
			name, graphParams(g1), len(centre), eps, found2, foundInf)
		for _, m := range envList("NNBOUND_GRAPH_METHODS", "interval,window1,window2,backsub,adaptive,weights,combined") {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			cpu0 := cpuSeconds()
			start := time.Now()
			opts := methods[m]
			if os.Getenv("NNBOUND_GRAPH_LOG") == "1" {
				opts.Log = os.Stderr
			}
			pb, err := GraphPair(g1, g2, spec.Inputs{Box: box}, opts)
			if err != nil {
				t.Fatal(err)
			}
			el, cpu := time.Since(start), cpuSeconds()-cpu0
			runtime.ReadMemStats(&after)
			t.Logf("%s %-8s %7.2fs (cpu %7.2fs) alloc %6.0f MB heap %5.0f MB rows %7d  ||d||_2 <= %.4g (x%.3g)  ||d||_inf <= %.4g (x%.3g)",
				name, m, el.Seconds(), cpu, float64(after.TotalAlloc-before.TotalAlloc)/1e6, float64(after.HeapSys)/1e6, pb.Combined.Rows,
				pb.Norm2(), pb.Norm2()/found2, pb.NormInf(), pb.NormInf()/foundInf)
		}
	}
}

// graphLongPair is a pair of TestGraphLong: the graphs, the radius of the
// ball, its centre (nil: random) and whether the box is clipped to [0, 1].
type graphLongPair struct {
	g1, g2 *nn.Graph
	eps    float64
	centre []float64
	clip   bool
}

// cifarPair returns a CIFAR-shaped ResNet of testdata/graphs (model: the
// name of its .onnx and .json files) with its copy (a file there, or
// "fb8": 8 fractional bits) and its first input.
func cifarPair(t *testing.T, model, copyName string) graphLongPair {
	dir := filepath.Join("..", "testdata", "graphs")
	g1, _, _, err := modelfile.LoadGraph(filepath.Join(dir, model+".onnx"), modelfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var g2 *nn.Graph
	if copyName == "fb8" {
		qo := quantise.DefaultOptions()
		qo.Weights.FracBits, qo.Biases.FracBits = 8, 8
		g2, err = quantise.Graph(g1, qo)
	} else {
		g2, _, _, err = modelfile.LoadGraph(filepath.Join(dir, copyName), modelfile.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, model+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Inputs [][]float64 }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	k, _ := strconv.Atoi(os.Getenv("NNBOUND_GRAPH_INPUT"))
	return graphLongPair{g1: g1, g2: g2, eps: 1.0 / 255, centre: file.Inputs[k], clip: true}
}

// envList returns the comma-separated list in the environment variable
// name, or def.
func envList(name, def string) []string {
	if v := os.Getenv(name); v != "" {
		return strings.Split(v, ",")
	}
	return strings.Split(def, ",")
}

// sampledDiff returns the largest ||g2(x) - g1(x)|| over m random points
// and corners of box, each followed by a few steps of coordinate-sign
// ascent on the 2-norm.
func sampledDiff(rng *rand.Rand, g1, g2 *nn.Graph, box spec.Box, m int) (n2, nInf float64) {
	diff := func(x []float64) (float64, float64) {
		y1, _ := g1.Eval(x)
		y2, _ := g2.Eval(x)
		s, mx := 0.0, 0.0
		for j := range y1 {
			d := y2[j] - y1[j]
			s += d * d
			mx = max(mx, math.Abs(d))
		}
		return math.Sqrt(s), mx
	}
	for _, x := range boxSamples(rng, box, m) {
		a, b := diff(x)
		n2, nInf = max(n2, a), max(nInf, b)
	}
	// Signed gradient ascent on each output difference from the centre.
	centre := make([]float64, box.Dim())
	for i := range centre {
		centre[i] = box.Lo[i]/2 + box.Hi[i]/2
	}
	for j := range g1.OutputSize() {
		for _, sign := range []float64{1, -1} {
			x := slices.Clone(centre)
			for range 5 {
				g := graphGrad(g2, x, j)
				for i, v := range graphGrad(g1, x, j) {
					g[i] = sign * (g[i] - v)
				}
				for i := range x {
					step := (box.Hi[i] - box.Lo[i]) / 2
					x[i] = min(max(x[i]+math.Copysign(step, g[i]), box.Lo[i]), box.Hi[i])
				}
				a, b := diff(x)
				n2, nInf = max(n2, a), max(nInf, b)
			}
		}
	}
	return n2, nInf
}

// graphGrad returns the gradient of output j of g at x, for graphs of
// affine maps, piecewise linear activations and joins (a test's reverse
// pass; the kink's left derivative, quantisers passed straight through).
func graphGrad(g *nn.Graph, x []float64, j int) []float64 {
	vals, _ := g.EvalAll(x)
	adj := make([][]float64, len(vals))
	adj[len(vals)-1] = make([]float64, len(vals[len(vals)-1]))
	adj[len(vals)-1][j] = 1
	add := func(v int, a []float64) {
		if adj[v] == nil {
			adj[v] = make([]float64, len(vals[v]))
		}
		for i, t := range a {
			adj[v][i] += t
		}
	}
	for k := len(g.Nodes) - 1; k >= 0; k-- {
		a, n := adj[k+1], g.Nodes[k]
		if a == nil {
			continue
		}
		switch op := n.Op.(type) {
		case *nn.Affine:
			t := make([]float64, op.M.In())
			op.M.ApplyTransposed(t, a)
			add(n.Inputs[0], t)
		case nn.Act:
			t := make([]float64, len(a))
			for i, v := range vals[n.Inputs[0]] {
				s := 1.0
				if v <= 0 && op.Act.Kind == nn.ReLU {
					s = 0
				}
				t[i] = s * a[i]
			}
			add(n.Inputs[0], t)
		case *nn.Quantise: // straight through
			add(n.Inputs[0], a)
		case nn.Add:
			add(n.Inputs[0], a)
			b := slices.Clone(a)
			if op.Negate {
				for i := range b {
					b[i] = -b[i]
				}
			}
			add(n.Inputs[1], b)
		}
	}
	if adj[0] == nil {
		return make([]float64, len(vals[0]))
	}
	return adj[0]
}

// graphParams returns the number of weights and biases of g's
// convolutions (one bias per channel) and dense maps.
func graphParams(g *nn.Graph) int {
	n := 0
	for _, node := range g.Nodes {
		if a, ok := node.Op.(*nn.Affine); ok {
			switch m := a.M.(type) {
			case *nn.Conv2D:
				n += len(m.Kernel) + m.OutC
			case nn.DenseMap:
				n += m.In()*m.Out() + len(a.B)
			}
		}
	}
	return n
}

// cpuSeconds returns the user and system CPU time of the process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
