package suite

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/benchdata"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/spec"
)

// acasFullBox is the whole normalised input domain of the ACAS Xu networks
// ((min - mean) / range to (max - mean) / range of the header of every
// run2a network).
var acasFullBox = spec.Box{
	Lo: []float64{(0 - 19791.091) / 60261.0, -3.141593 / 6.28318530718, -3.141593 / 6.28318530718, (100.0 - 650.0) / 1100.0, (0 - 600.0) / 1200.0},
	Hi: []float64{(60760.0 - 19791.091) / 60261.0, 3.141593 / 6.28318530718, 3.141593 / 6.28318530718, (1200.0 - 650.0) / 1100.0, (1200.0 - 600.0) / 1200.0},
}

// scale certifies |f'_0 - f_0| for ACAS Xu networks (f and its float16
// copy, six hidden layers of 50 ReLU, same input) on the whole normalised
// input domain, where most neurons are unstable: one SDP, no splitting,
// and the process's peak resident memory.
func (b *certBench) scale(ctx context.Context, nets []string) error {
	root := shared.Root()
	if root == "" {
		fmt.Fprintln(b.log, "scale: shared benchmark folder not found; nothing to do")
		return nil
	}
	fmt.Fprintln(b.out, "### A pair of 6 x 50 ReLU networks on the whole ACAS Xu input domain (f vs its float16 copy, output 0)")
	fmt.Fprintln(b.out)
	fmt.Fprintln(b.out, "| net | unstable f, f' | LMI order | variables | status | solver status | iterations | SDP bound | interval bound | solver s | total s | peak RSS MiB |")
	fmt.Fprintln(b.out, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, net := range nets {
		f, fp, err := benchdata.ACASNetworks(filepath.Join(root, "data", "benchmarks"), net)
		if err != nil {
			return err
		}
		o := certjob.Default()
		o.Pairing, o.Bounds, o.Refine.MaxPieces, o.Samples = spec.SameInput, bounds.MethodOptimised, 1, 200
		o.C = spec.OutputC(f.OutputSize(), 0)
		pb, err := bounds.Pair(f, fp, spec.Inputs{Box: acasFullBox, Pairing: spec.SameInput}, bounds.Options{Method: o.Bounds})
		if err != nil {
			return err
		}
		n1, err := pb.Net1.Unstable(f)
		if err != nil {
			return err
		}
		n2, err := pb.Net2.Unstable(fp)
		if err != nil {
			return err
		}
		u1, u2 := 0, 0
		for k := range n1 {
			u1 += n1[k]
			u2 += n2[k]
		}
		fmt.Fprintf(b.log, "scale %s\n", net)
		resetPeakRSS()
		c, err := b.boundBox(ctx, f, fp, acasFullBox, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "| %s | %d, %d | %d | %d | %v | %v | %d | %.4g | %.4g | %.3g | %.3g | %.0f |\n", net, u1, u2,
			c.SDP.Size, c.SDP.Variables, c.Status, c.SDP.Status, c.SDP.Iterations, c.SDPBound, c.IntervalBound,
			c.SDP.Time.Seconds(), c.Time.Seconds(), peakRSS())
	}
	fmt.Fprintln(b.out)
	return nil
}
