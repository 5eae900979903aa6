package suite

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/spec"
)

// familyCase is one instance of the families experiment.
type familyCase struct {
	name   string
	f1, f2 *nn.Network
	box    spec.Box
	opts   certjob.Job
}

// familyVariant is one QC set of the families experiment.
type familyVariant struct {
	name  string
	kinds qc.KindSet
}

// familyKinds are the kinds the experiment adds to or removes from the
// default set, one at a time.
var familyKinds = []qc.Kind{
	qc.KindPreBox, qc.KindPostBox, qc.KindTriangle, qc.KindTriangleProduct,
	qc.KindDiffSlope, qc.KindDiffPreBox, qc.KindDiffPostBox, qc.KindDiffChord, qc.KindDiffChordProduct,
}

// familyVariants returns the default set, the default set with each of
// familyKinds toggled, and every candidate together.
func familyVariants() []familyVariant {
	def := certify.DefaultKinds()
	vs := []familyVariant{{"default", def}}
	all := def
	for _, k := range familyKinds {
		all = all.With(k)
		if def.Has(k) {
			vs = append(vs, familyVariant{"- " + k.String(), def.Without(k)})
		} else {
			vs = append(vs, familyVariant{"+ " + k.String(), def.With(k)})
		}
	}
	return append(vs, familyVariant{"all of them", all})
}

// families measures what each family of quadratic constraints buys: the
// root SDP (no input splitting) of ACAS Xu float16 instances (same input,
// target output, optimised bounds) and of Table 1 and 2 instances, solved
// with each variant of the default set; bounds are the SDP's own (not the
// output enclosure's), relative to the default set's on the same instance.
func (b *certBench) families(ctx context.Context, layers []int, acas []string) error {
	cases, err := b.familyCases(layers, acas)
	if err != nil {
		return err
	}
	variants := familyVariants()
	type cell struct {
		bound float64
		secs  float64
		vars  int
		ok    bool
	}
	res := make([][]cell, len(variants))
	for v, va := range variants {
		res[v] = make([]cell, len(cases))
		for i, fc := range cases {
			o := fc.opts
			o.Kinds = va.kinds
			fmt.Fprintf(b.log, "families %s: %s\n", va.name, fc.name)
			c, err := b.boundBox(ctx, fc.f1, fc.f2, fc.box, o)
			if err != nil {
				return err
			}
			res[v][i] = cell{bound: c.SDPBound, secs: c.SDP.Time.Seconds(), vars: c.SDP.Variables,
				ok: !math.IsInf(c.SDPBound, 0)}
		}
	}
	fmt.Fprintln(b.out, "### What each family of constraints buys (root SDP, no splitting)")
	fmt.Fprintln(b.out)
	fmt.Fprintf(b.out, "Instances: %s.\n\n", caseNames(cases))
	for _, group := range []string{"acas", "table"} {
		fmt.Fprintf(b.out, "%s instances:\n\n", map[string]string{"acas": "ACAS Xu", "table": "Table 1 and 2"}[group])
		fmt.Fprintln(b.out, "| QC set | solved | bound / default's (median) | (min) | (max) | variables (mean) | solver s (mean) |")
		fmt.Fprintln(b.out, "|---|---|---|---|---|---|---|")
		for v, va := range variants {
			var ratios []float64
			solved, n, vars, secs := 0, 0, 0, 0.0
			for i, fc := range cases {
				if strings.HasPrefix(fc.name, "ACAS") != (group == "acas") {
					continue
				}
				n++
				r := res[v][i]
				vars += r.vars
				secs += r.secs
				if r.ok {
					solved++
				}
				if d := res[0][i]; r.ok && d.ok && d.bound > 0 {
					ratios = append(ratios, r.bound/d.bound)
				}
			}
			if n == 0 {
				continue
			}
			fmt.Fprintf(b.out, "| %s | %d/%d | %.4g | %.4g | %.4g | %.0f | %.3g |\n", va.name, solved, n,
				median(ratios), minOf(ratios), maxOf(ratios), float64(vars)/float64(n), secs/float64(n))
		}
		fmt.Fprintln(b.out)
	}
	return nil
}

// familyCases returns the ACAS Xu instances named "prop/net" in acas (if
// the shared benchmark folder is there) and the Table 1 and 2 instances of
// the first --runs seeds at each depth.
func (b *certBench) familyCases(layers []int, acas []string) ([]familyCase, error) {
	var cases []familyCase
	root := shared.Root()
	if root == "" && len(acas) > 0 {
		fmt.Fprintln(b.log, "families: shared benchmark folder not found; ACAS Xu instances skipped")
	}
	for _, pn := range acas {
		if root == "" {
			break
		}
		prop, net, ok := strings.Cut(pn, "/")
		if !ok {
			return nil, UsageError{fmt.Errorf("--acas %q: want prop/net, e.g. 3/1_1", pn)}
		}
		insts, err := loadACAS(filepath.Join(root, "data", "benchmarks"), []string{prop}, []string{net})
		if err != nil {
			return nil, err
		}
		for _, in := range insts {
			f, fp, err := in.Networks()
			if err != nil {
				return nil, err
			}
			o := certjob.Default()
			o.Pairing, o.Bounds, o.Refine.MaxPieces, o.Samples = spec.SameInput, bounds.MethodOptimised, 1, 100
			o.C = spec.OutputC(f.OutputSize(), in.Target)
			cases = append(cases, familyCase{"ACAS " + pn, f, fp, spec.Box{Lo: in.Lo, Hi: in.Hi}, o})
		}
	}
	for _, table := range []int{1, 2} {
		for _, l := range layers {
			for i := range b.runs {
				f1, f2, o, err := b.instance(table, l, i)
				if err != nil {
					return nil, err
				}
				o.Refine.MaxPieces, o.Samples = 1, 100
				cases = append(cases, familyCase{fmt.Sprintf("T%d l%d s%d", table, l, experiment.NetSeed(b.seed, l, i)), f1, f2, unitBox, o})
			}
		}
	}
	return cases, nil
}

// boundBox certifies one instance on box with the benchmark's solver.
func (b *certBench) boundBox(ctx context.Context, f1, f2 *nn.Network, box spec.Box, o certjob.Job) (*certify.Certificate, error) {
	o.Solve = b.solve
	start := time.Now()
	c, err := o.Bound(ctx, f1, f2, box)
	if err == nil && c.SDP.Time == 0 {
		c.SDP.Time = time.Since(start)
	}
	return c, err
}

func caseNames(cs []familyCase) string {
	var names []string
	for _, c := range cs {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func minOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return slices.Min(v)
}
