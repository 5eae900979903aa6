package top1

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nnbound/nnbound/agree"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/verify"
)

// DefaultTimeout and DefaultMaxNodes are the default limits of one
// ball (agree.Options.Timeout and Run's maxNodes): most balls of the
// digits benchmark are settled at the root, and the few left after a few
// hundred boxes rarely settle later (docs/tuning.md).
const (
	DefaultTimeout  = 5 * time.Second
	DefaultMaxNodes = 300
)

// Run decides the balls of q about the samples by agree.Run with opts,
// f and g compared by Decider: each ball searched by verify on one worker
// (agree.Run decides samples in parallel instead) and stopped with
// unknown after bounding maxNodes boxes (0: no limit). It is the run of
// "nnbound agree" and the judge of each copy of "nnbound allocate
// --target-agreement".
func Run(ctx context.Context, f, g *nn.Network, q Question, maxNodes int, samples []agree.Sample, opts agree.Options) (*agree.Summary, error) {
	if err := q.Check(samples); err != nil {
		return nil, err
	}
	vo := verify.DefaultOptions()
	vo.Workers, vo.MaxNodes = 1, maxNodes
	return agree.Run(ctx, samples, Decider(f, g, q, &vo), opts)
}

// Check reports the first sample whose ball misses the domain: a value
// farther than the radius outside [Lo, Hi], as a test set not scaled to
// the networks' input range has. Ball would clip such a ball to the
// domain's nearest end, a question about another input.
func (q Question) Check(samples []agree.Sample) error {
	for _, s := range samples {
		for j, v := range s.X {
			if v-q.Radius > q.Hi || v+q.Radius < q.Lo {
				return fmt.Errorf("top1: sample %d, value %d is %v, farther than the radius %v outside the domain [%v, %v]: its ball holds no input of the domain (scale the test set to the domain, or widen it)",
					s.Index, j, v, q.Radius, q.Lo, q.Hi)
			}
		}
	}
	return nil
}

// On names q asked of the test set at path, read from the input files
// files (agree.Digests): "on NAME, L-inf radius R in [LO, HI] (inputs
// DIGEST)", for agree.Options.Question. The digest keeps a rerun from
// resuming the log of another pair or test set of the same names.
func (q Question) On(path string, files []agree.File) string {
	return fmt.Sprintf("on %s, %s (inputs %s)", filepath.Base(path), q, agree.InputsDigest(files))
}
