package verify

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/spec"
)

// TestTreeSizeEstimate estimates the size of the search tree of an ACAS Xu
// float16 instance (NNBOUND_TREE_INSTANCE, default 7/1_9, eps
// NNBOUND_TREE_EPS, default 0.05) and the time it takes (each node timed
// on one goroutine: node-seconds), by Knuth's
// estimator: NNBOUND_TREE_DIVES random paths from the root (default 100),
// each node processed as the search does and one of its two children taken
// at random, the path ending at a settled node; a path settled at depth k
// stands for sum_{i<=k} 2^i nodes. The tree does not depend on the order
// in which the search takes its nodes, so the estimate is unbiased;
// NNBOUND_TREE_RATIO, _ITER, _STEP, _EARLY, _CONTINUE and _SPLIT set
// Options.OptimiseRatio, OptimiseIterations, OptimiseStep, EarlyStopRatio,
// ContinueRatio and Split. It logs the estimate every 10 dives up to 100,
// then every 100; the estimates are deterministic (not the CPU).
// NNBOUND_LONG=1 only.
func TestTreeSizeEstimate(t *testing.T) {
	dives := longNodes(t, "NNBOUND_TREE_DIVES", 100)
	prop, net, eps := "7", "1_9", 0.05
	if v := os.Getenv("NNBOUND_TREE_INSTANCE"); v != "" {
		if _, err := fmt.Sscanf(v, "%1s/%s", &prop, &net); err != nil {
			t.Fatal(err)
		}
	}
	opts := DefaultOptions()
	iters := float64(opts.OptimiseIterations)
	for name, p := range map[string]*float64{"NNBOUND_TREE_EPS": &eps, "NNBOUND_TREE_RATIO": &opts.OptimiseRatio,
		"NNBOUND_TREE_ITER": &iters, "NNBOUND_TREE_STEP": &opts.OptimiseStep, "NNBOUND_TREE_EARLY": &opts.EarlyStopRatio,
		"NNBOUND_TREE_CONTINUE": &opts.ContinueRatio} {
		if v := os.Getenv(name); v != "" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			*p = x
		}
	}
	opts.OptimiseIterations = int(iters)
	if v := os.Getenv("NNBOUND_TREE_SPLIT"); v != "" {
		rules := map[string]SplitRule{"gradient": SplitGradient, "interval": SplitInterval, "difference": SplitDifference}
		r, ok := rules[v]
		if !ok {
			t.Fatalf("NNBOUND_TREE_SPLIT %q: want gradient, interval or difference", v)
		}
		opts.Split = r
	}
	inst := boundstest.ACASProperty(t, prop, net)
	f, g := inst.Networks(t)
	in := spec.Inputs{Box: spec.Box{Lo: inst.Lo, Hi: inst.Hi}}
	tol := spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{eps}, Outputs: []int{inst.Target}}
	d := newDecider(f, g, in, tol, opts)
	m := f.OutputSize()
	mag := make([]float64, m)
	for k := range mag {
		mag[k] = math.Inf(1)
	}
	root := &node{lo: in.Box.Lo, hi: in.Box.Hi, open: d.compared, mag: mag, prio: math.Inf(1), vol: 1}
	ro := d.process(context.Background(), root)
	if ro.err != nil || ro.violation != nil || len(ro.open) == 0 {
		t.Fatalf("root: err %v, violation %v, open %v", ro.err, ro.violation, ro.open)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var sumNodes, sumSq, sumCPU float64
	var depths [64]int
	var open [12]float64 // unsettled nodes by bound, eps units: [1,1.1), ..., [2,inf)
	next := 1
	for dive := range dives {
		n, o := root, ro
		est, cpu, w := 1.0, 0.0, 1.0
		depth := 0
		for {
			c := d.children(n, o, o.split, &next)[rng.IntN(2)]
			depth++
			w *= 2
			start := time.Now()
			o = d.process(context.Background(), c)
			cpu += w * time.Since(start).Seconds()
			est += w
			n = c
			if o.err != nil {
				t.Fatal(o.err)
			}
			if o.violation != nil {
				t.Fatalf("violation at depth %d", depth)
			}
			if len(o.open) == 0 || o.split < 0 || depth >= 60 {
				break
			}
			open[min(11, int((d.prio(o.mag, o.open)-1)*10))] += w
		}
		depths[min(depth, 63)]++
		sumNodes += est
		sumSq += est * est
		sumCPU += cpu
		if (dive+1)%10 == 0 {
			k := float64(dive + 1)
			mean := sumNodes / k
			se := math.Sqrt(max(0, sumSq/k-mean*mean) / k)
			if (dive+1)%100 == 0 || dive < 100 {
				t.Logf("%d dives: nodes %.0f (se %.0f), node-seconds %.0f", dive+1, mean, se, sumCPU/k)
			}
		}
	}
	t.Logf("leaf depths: %v", depths)
	for i := range open {
		open[i] /= float64(dives)
	}
	t.Logf("unsettled nodes by bound, [1,1.1), ..., [2,inf): %.0f", open)
}
