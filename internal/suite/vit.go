package suite

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
)

// ViTOptions are the options of the ViT suite.
type ViTOptions struct {
	Dir     string        // folder of vit_digits.onnx and digits_test.json
	Copies  []string      // copies to compare: float16, fb8
	Balls   int           // balls per copy
	Verify  time.Duration // verify at 2x the error found, stopped after this long (0: no verify)
	Profile string        // file of a CPU profile of the run ("" for none)
}

// DefaultViTOptions returns the ViT suite's defaults: both copies, 10
// balls, verify stopped after 100 s.
func DefaultViTOptions() ViTOptions {
	return ViTOptions{Dir: filepath.Join("testdata", "graphs"), Copies: []string{"float16", "fb8"}, Balls: 10, Verify: 100 * time.Second}
}

// vitRow is the measurement of one ball.
type vitRow struct {
	copy                 string
	ball                 int
	bound, observed, own float64
	secs, cpu            float64
	verdict              string
	vsecs, vcpu          float64
}

// ViT certifies the tiny ViT of testdata/graphs against its float16 and
// FB-8 copies over L-inf balls of radius 1/255 around test images (see
// bench vit -h), and prints per ball the bound, the errors found, their
// ratio, seconds and verify's verdict; then the median ratio per copy.
func ViT(ctx context.Context, stdout, stderr io.Writer, f ViTOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	g, _, _, err := modelfile.LoadGraph(filepath.Join(f.Dir, "vit_digits.onnx"), modelfile.Options{})
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(f.Dir, "digits_test.json"))
	if err != nil {
		return err
	}
	var test struct{ Inputs [][]float64 }
	if err := json.Unmarshal(data, &test); err != nil {
		return fmt.Errorf("digits_test.json: %w", err)
	}
	p := &experiment.GraphPair{Centres: test.Inputs[:min(f.Balls, len(test.Inputs))], Radius: 1.0 / 255, Lo: 0, Hi: 1}
	stop, err := startCPUProfile(f.Profile)
	if err != nil {
		return err
	}
	defer stop()
	cpu0 := cputime.Process()
	var rows []vitRow
	for _, name := range f.Copies {
		var c *nn.Graph
		switch name {
		case "float16":
			c, err = quantise.Float16Graph(g)
		case "fb8":
			qo := quantise.DefaultOptions()
			qo.Weights.FracBits, qo.Biases.FracBits = 8, 8
			c, err = quantise.Graph(g, qo)
		default:
			return UsageError{Err: fmt.Errorf("--copies: unknown copy %q", name)}
		}
		if err != nil {
			return err
		}
		for i := range p.Centres {
			r, err := measureViT(ctx, g, c, p, i, f.Verify)
			if err != nil {
				return err
			}
			r.copy = name
			fmt.Fprintf(stderr, "bench vit: %s ball %d: bound %.4g, found %.4g, %.1f s, verify %s\n", name, i, r.bound,
				max(r.observed, r.own), r.secs, r.verdict)
			rows = append(rows, r)
		}
	}
	return writeViT(stdout, rows, cputime.Process()-cpu0)
}

// measureViT certifies ball i of p for f and g, searches it, and verifies
// it at twice the error found.
func measureViT(ctx context.Context, f, g *nn.Graph, p *experiment.GraphPair, i int, vt time.Duration) (vitRow, error) {
	in := spec.Inputs{Box: p.Ball(i), Pairing: spec.SameInput}
	start, cpu := time.Now(), cputime.Process()
	c, err := certify.BoundGraph(ctx, f, g, in, spec.Quantity{Norm: spec.Norm2}, certify.DefaultOptions())
	if err != nil {
		return vitRow{}, fmt.Errorf("ball %d: %w", i, err)
	}
	r := vitRow{ball: i, bound: c.Bound, observed: c.ObservedError, verdict: "-",
		secs: time.Since(start).Seconds(), cpu: (cputime.Process() - cpu).Seconds()}
	r.own = climbError(f, g, in.Box, uint64(i))
	eps := 2 * max(r.observed, r.own)
	if vt <= 0 || !(eps > 0) {
		return r, nil
	}
	vctx, cancel := context.WithTimeout(ctx, vt)
	defer cancel()
	vo := verify.DefaultOptions()
	start, cpu = time.Now(), cputime.Process()
	res, err := verify.DecideGraph(vctx, f, g, in, spec.Tolerance{Norm: spec.Norm2, Eps: []float64{eps}}, &vo)
	if err != nil {
		return vitRow{}, fmt.Errorf("ball %d: %w", i, err)
	}
	r.verdict, r.vsecs, r.vcpu = res.Status.String(), time.Since(start).Seconds(), (cputime.Process() - cpu).Seconds()
	return r, nil
}

// climbError returns the largest ||f(x) - g(x)||_2 it finds on the box:
// 300 samples (corners, points near the faces, uniform points), then from
// the best three a climb of 300 random steps each, a step kept when it
// raises the error, its size doubled after a success and shrunk by 2^-1/4
// after a failure, one step in four moving one input to an end of its
// range.
func climbError(f, g *nn.Graph, b spec.Box, seed uint64) float64 {
	r := rand.New(rand.NewPCG(seed, 0xc11b))
	errAt := func(x []float64) float64 {
		y1, err1 := f.Eval(x)
		y2, err2 := g.Eval(x)
		if err1 != nil || err2 != nil {
			return math.Inf(-1)
		}
		s := 0.0
		for j := range y1 {
			s += (y1[j] - y2[j]) * (y1[j] - y2[j])
		}
		return math.Sqrt(s)
	}
	type point struct {
		x []float64
		e float64
	}
	pts := make([]point, 300)
	for k := range pts {
		x := make([]float64, len(b.Lo))
		for i := range x {
			u := r.Float64()
			switch k % 3 {
			case 0:
				u = float64(r.IntN(2))
			case 1:
				if u = math.Pow(u, 4); r.IntN(2) == 0 {
					u = 1 - u
				}
			}
			x[i] = b.Lo[i] + u*(b.Hi[i]-b.Lo[i])
		}
		pts[k] = point{x, errAt(x)}
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(b.e, a.e) })
	best := pts[0].e
	for _, p := range pts[:3] {
		x, e, sigma := p.x, p.e, 0.3
		y := make([]float64, len(x))
		for range 300 {
			copy(y, x)
			if r.IntN(4) == 0 {
				i := r.IntN(len(y))
				y[i] = []float64{b.Lo[i], b.Hi[i]}[r.IntN(2)]
			} else {
				for i := range y {
					y[i] = min(b.Hi[i], max(b.Lo[i], y[i]+sigma*(b.Hi[i]-b.Lo[i])*r.NormFloat64()))
				}
			}
			if v := errAt(y); v > e {
				x, y, e, sigma = y, x, v, min(1, 2*sigma)
			} else {
				sigma = max(1e-3, sigma*math.Pow(2, -0.25))
			}
		}
		best = max(best, e)
	}
	return best
}

// writeViT prints the rows, the median ratio of each copy, the CPU time
// and the peak memory.
func writeViT(w io.Writer, rows []vitRow, cpu time.Duration) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "copy\tball\tbound\tfound (certify)\tfound (climb)\tbound/found\ts\tCPU s\tverify 2x\ts\tCPU s")
	ratios := map[string][]float64{}
	var names []string
	for _, r := range rows {
		ratio := r.bound / max(r.observed, r.own)
		fmt.Fprintf(tw, "%s\t%d\t%.4g\t%.4g\t%.4g\t%.3g\t%.1f\t%.1f\t%s\t%.1f\t%.1f\n", r.copy, r.ball, r.bound, r.observed, r.own,
			ratio, r.secs, r.cpu, r.verdict, r.vsecs, r.vcpu)
		if _, ok := ratios[r.copy]; !ok {
			names = append(names, r.copy)
		}
		ratios[r.copy] = append(ratios[r.copy], ratio)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range names {
		rs := slices.Sorted(slices.Values(ratios[n]))
		m := len(rs) / 2
		med := rs[m]
		if len(rs)%2 == 0 {
			med = (rs[m-1] + rs[m]) / 2
		}
		fmt.Fprintf(w, "%s: median bound/found %.3g over %d balls\n", n, med, len(rs))
	}
	_, err := fmt.Fprintf(w, "CPU %.1f s, peak resident memory %.0f MiB (VmHWM)\n", cpu.Seconds(), peakRSS())
	return err
}
