package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/spec"
)

// Int8JointOptions are the options of bench int8joint.
type Int8JointOptions struct {
	Dir     string   // the folder of the QDQ models (one subfolder per model)
	Model   string   // the subfolder of Dir: MODEL.onnx, MODEL_int8_SCHEME.onnx, test_set.json
	Schemes []string // the int8 schemes (file suffixes)
	Balls   int      // L-inf balls around the first Balls test images
	Radius  float64  // their radius (clipped to [0, 1])
	Box     bool     // a row for the whole box of samples.json too
	// Certify are the options of the certificates: compare's defaults.
	Certify certify.Options
}

// DefaultInt8JointOptions returns the defaults of bench int8joint: the
// int8 digits model, both schemes, 10 balls of radius 4/255 and the whole
// box [0, 1]^64, with compare's default options.
func DefaultInt8JointOptions() Int8JointOptions {
	return Int8JointOptions{Dir: filepath.Join("nn", "onnx", "testdata", "qdq"), Model: "digits_relu",
		Schemes: []string{"perchannel", "pertensor"}, Balls: 10, Radius: 4.0 / 255, Box: true, Certify: certify.DefaultOptions()}
}

// Int8Joint certifies the 2-norm of the output difference of the float
// model of o against its int8 copies on balls around test images (and
// the whole box) twice: without the SDP (the options' QC kinds without
// qc.KindNoise: bound propagation with input splitting, as before the
// int8 quadratic constraints) and with it (the options as given), and
// prints one row per input set and scheme, then the median ratios.
func Int8Joint(ctx context.Context, w io.Writer, o *Int8JointOptions) error {
	if o.Balls < 0 || !(o.Radius > 0) {
		return UsageError{fmt.Errorf("--balls %d, --radius %g: want >= 0 and > 0", o.Balls, o.Radius)}
	}
	dir := filepath.Join(o.Dir, o.Model)
	sets, err := int8JointSets(dir, o)
	if err != nil {
		return err
	}
	f1, _, err := onnx.Read(filepath.Join(dir, o.Model+".onnx"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "compare %s %s_int8_SCHEME --pairing same, compare's defaults (2-norm of the output difference);\n", o.Model, o.Model)
	fmt.Fprintf(w, "before: without the int8 SDP (bound propagation with input splitting), after: with it\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scheme\tset\tbefore\tafter\troot SDP\tfound\tratio before\tratio after\tCPU s\twall s\tbudget hit\tfree roundings >=\t")
	ratios := map[string][2][]float64{}
	for _, scheme := range o.Schemes {
		f2, _, err := onnx.Read(filepath.Join(dir, o.Model+"_int8_"+scheme+".onnx"))
		if err != nil {
			return err
		}
		_, low, err := bounds.LowerPair(f1, f2, o.Certify.RequantSlack)
		if err != nil {
			return err
		}
		for _, set := range sets {
			before, after, cpu, err := int8JointRow(ctx, f1, f2, set.box, o.Certify)
			if err != nil {
				return err
			}
			var starts [][]float64
			for _, c := range []*certify.Certificate{before, after} {
				if c.X1 != nil {
					starts = append(starts, c.X1)
				}
			}
			free := freeRoundingMax(f1, low, set.box, starts, 40, 1)
			found := max(before.ObservedError, after.ObservedError) // both are errors attained at inputs of the set
			rb, ra := before.Bound/found, after.Bound/found
			fmt.Fprintf(tw, "%s\t%s\t%.5g\t%.5g\t%.5g\t%.5g\t%.3f\t%.3f\t%.1f\t%.1f\t%v\t%.5g\t\n", scheme, set.name, before.Bound, after.Bound,
				after.SDPBound, found, rb, ra, cpu.Seconds(), after.Time.Seconds(), after.TimeBudgetHit, free)
			if set.ball {
				r := ratios[scheme]
				r[0], r[1] = append(r[0], rb), append(r[1], ra)
				ratios[scheme] = r
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, scheme := range o.Schemes {
		if r := ratios[scheme]; len(r[0]) > 0 {
			fmt.Fprintf(w, "%s: median ratio over the %d balls %.3f before, %.3f after\n", scheme, len(r[0]), median(r[0]), median(r[1]))
		}
	}
	return nil
}

// int8JointSet is one input set of bench int8joint.
type int8JointSet struct {
	name string
	box  spec.Box
	ball bool
}

// int8JointSets returns the balls around the first o.Balls test images of
// dir/test_set.json and, with o.Box, the box of dir/samples.json.
func int8JointSets(dir string, o *Int8JointOptions) ([]int8JointSet, error) {
	var sets []int8JointSet
	if o.Balls > 0 {
		data, err := os.ReadFile(filepath.Join(dir, "test_set.json"))
		if err != nil {
			return nil, err
		}
		var ts struct {
			Inputs [][]float64 `json:"inputs"`
		}
		if err := json.Unmarshal(data, &ts); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "test_set.json"), err)
		}
		if len(ts.Inputs) < o.Balls {
			return nil, fmt.Errorf("%s: %d test images, --balls %d", dir, len(ts.Inputs), o.Balls)
		}
		for i := range o.Balls {
			sets = append(sets, int8JointSet{name: fmt.Sprintf("ball %d", i), box: ball(ts.Inputs[i], o.Radius), ball: true})
		}
	}
	if o.Box {
		s, err := readInt8Samples(filepath.Join(dir, "samples.json"))
		if err != nil {
			return nil, err
		}
		box := spec.Box{Lo: s.InputBox[0], Hi: s.InputBox[1]}
		sets = append(sets, int8JointSet{name: boxString(box), box: box})
	}
	return sets, nil
}

// int8JointRow certifies f1 against f2 on box without the int8 SDP and
// with it, and returns both certificates and the CPU time of the second.
func int8JointRow(ctx context.Context, f1, f2 *nn.Network, box spec.Box, o certify.Options) (before, after *certify.Certificate, cpu time.Duration, err error) {
	in, q := spec.Inputs{Box: box, Pairing: spec.SameInput}, spec.Quantity{Norm: spec.Norm2}
	ob := o
	if ob.Kinds == 0 {
		ob.Kinds = certify.DefaultKinds()
	}
	ob.Kinds = ob.Kinds.Without(qc.KindNoise)
	if before, err = certify.Bound(ctx, f1, f2, in, q, ob); err != nil {
		return nil, nil, 0, err
	}
	c0 := cputime.Process()
	after, err = certify.Bound(ctx, f1, f2, in, q, o)
	return before, after, cputime.Process() - c0, err
}
