package suite

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// infNorm compares the two ways of certifying the inf-norm
// max_j |f1_j - f2_j|: one SDP per output (the default) and one SDP with a
// block and gammas per output sharing the multipliers
// (certjob.Job.InfJoint), both without input splitting, on the --acas
// instances (all five outputs, same input) and on random networks with
// three outputs against their FB = 2 copies (quantised input), --runs
// seeds per depth of --layers.
func (b *certBench) infNorm(ctx context.Context, layers []int, acas []string) error {
	cases, err := b.familyCases(nil, acas)
	if err != nil {
		return err
	}
	for i := range cases {
		cases[i].opts.C = nil
	}
	for _, l := range layers {
		for i := range b.runs {
			seed := experiment.NetSeed(b.seed, l, i)
			f1 := randnet.Paper(seed, 2, l, 10, 3)
			q := quantise.Format{FracBits: 2}
			f2, err := quantise.Network(f1, quantise.Options{Weights: q, Biases: q})
			if err != nil {
				return err
			}
			_, _, o, err := b.instance(2, l, i)
			if err != nil {
				return err
			}
			o.Refine.MaxPieces, o.Samples = 1, 100
			box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
			cases = append(cases, familyCase{fmt.Sprintf("Q l%d s%d", l, seed), f1, f2, box, o})
		}
	}
	type result struct {
		bound, secs float64
		solves      int
		ok          bool
	}
	var per, joint []result
	for _, fc := range cases {
		for _, j := range []bool{false, true} {
			o := fc.opts
			o.Norm, o.InfJoint = spec.NormInf, j
			fmt.Fprintf(b.log, "infnorm %s joint=%v\n", fc.name, j)
			c, err := b.boundBox(ctx, fc.f1, fc.f2, fc.box, o)
			if err != nil {
				return err
			}
			r := result{bound: c.SDPBound, secs: c.SDP.Time.Seconds(), solves: c.SDP.Solves, ok: !math.IsInf(c.SDPBound, 0)}
			if j {
				joint = append(joint, r)
			} else {
				per = append(per, r)
			}
		}
	}
	fmt.Fprintln(b.out, "### Inf-norm: one SDP per output against one SDP with per-output gammas (no splitting)")
	fmt.Fprintln(b.out)
	fmt.Fprintln(b.out, "| instances | runs | per output: solved | solver s (mean) | joint: solved | solver s (mean) | joint/per-output bound (median) | (min) | (max) |")
	fmt.Fprintln(b.out, "|---|---|---|---|---|---|---|---|---|")
	for _, group := range []string{"ACAS", "Q"} {
		var ratios []float64
		n, okP, okJ := 0, 0, 0
		var sP, sJ float64
		for i, fc := range cases {
			if !strings.HasPrefix(fc.name, group) {
				continue
			}
			n++
			sP += per[i].secs
			sJ += joint[i].secs
			if per[i].ok {
				okP++
			}
			if joint[i].ok {
				okJ++
			}
			if per[i].ok && joint[i].ok && per[i].bound > 0 {
				ratios = append(ratios, joint[i].bound/per[i].bound)
			}
		}
		if n == 0 {
			continue
		}
		name := map[string]string{"ACAS": "ACAS Xu float16 (5 outputs)", "Q": "random, 3 outputs, FB = 2 copy"}[group]
		fmt.Fprintf(b.out, "| %s | %d | %d | %.3g | %d | %.3g | %.4g | %.4g | %.4g |\n", name, n, okP, sP/float64(n),
			okJ, sJ/float64(n), median(ratios), minOf(ratios), maxOf(ratios))
	}
	fmt.Fprintln(b.out)
	return nil
}
