package suite

import (
	"context"
	"fmt"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/cputime"
)

// boundsConfig is a choice of pre-activation bounds for the default set.
type boundsConfig struct {
	method bounds.Method
	split  int
}

// boundsChoices compares the pre-activation bounds of the default QC set
// (certjob.Job.Bounds and Split) on Table 1 and 2 instances, --runs
// seeds per depth of --layers, with the default refinement (no time
// budget): CPU and wall time, bound / observed error, SDPs solved.
func (b *certBench) boundsChoices(ctx context.Context, layers []int) error {
	fmt.Fprintln(b.out, "### Pre-activation bounds of the default QC set (Options.Bounds, Options.Split)")
	fmt.Fprintln(b.out)
	fmt.Fprintln(b.out, "| table | l | bounds | split | CPU s (mean) | (max) | wall s (mean) | bound/observed (mean) | (max) | SDPs (mean) |")
	fmt.Fprintln(b.out, "|---|---|---|---|---|---|---|---|---|---|")
	configs := []boundsConfig{{bounds.MethodSymbolic, 0}, {bounds.MethodOptimised, 0}, {bounds.MethodOptimised, 16}}
	for _, table := range []int{1, 2} {
		for _, l := range layers {
			for _, bc := range configs {
				var cpu, cpuMax, wall time.Duration
				var ratio, ratioMax float64
				solves := 0
				for i := range b.runs {
					f1, f2, o, err := b.instance(table, l, i)
					if err != nil {
						return err
					}
					o.Bounds, o.Split = bc.method, bc.split
					fmt.Fprintf(b.log, "bounds table %d l=%d %v split %d run %d\n", table, l, bc.method, bc.split, i)
					c0 := cputime.Process()
					c, err := b.bound(ctx, f1, f2, o)
					if err != nil {
						return err
					}
					dc := cputime.Process() - c0
					cpu, cpuMax, wall = cpu+dc, max(cpuMax, dc), wall+c.Time
					ratio, ratioMax = ratio+c.Ratio(), max(ratioMax, c.Ratio())
					solves += c.SDP.Solves
				}
				n := float64(b.runs)
				fmt.Fprintf(b.out, "| %d | %d | %v | %d | %.3g | %.3g | %.3g | %.4g | %.4g | %.3g |\n", table, l, bc.method, bc.split,
					cpu.Seconds()/n, cpuMax.Seconds(), wall.Seconds()/n, ratio/n, ratioMax, float64(solves)/n)
			}
		}
	}
	fmt.Fprintln(b.out)
	return nil
}
