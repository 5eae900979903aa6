package experiment

import (
	"fmt"
	"io"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// AllocationText is what the text report of an allocation
// (AllocationResult.WriteText) says beside the result itself.
type AllocationText struct {
	// Network describes the model, for example "sin3x.onnx, 1-16-16-1".
	Network   string
	Box       spec.Box
	HideTimes bool // "-" for the run times
}

// WriteText prints the allocation r for people: a heading, the single
// widths certified (SweepTable) and the smallest meeting the target, the
// per-layer table (AllocationTable) and the totals. The certificate of
// the chosen copy is printed apart (CertReport).
func (r *AllocationResult) WriteText(w io.Writer, t AllocationText) error {
	target := report.Float(float64(r.TargetError), 4)
	width, chosen := "FB", "fractional bits chosen per layer"
	if r.Scheme != "" {
		width, chosen = "width", "the bits of the weights chosen per layer\ncopies: "+r.Scheme
	}
	fmt.Fprintf(w, "nnbound allocate: %s\ninput box %s; the quantised copy gets the same input, x2 = x1\n", t.Network, t.Box.Describe())
	fmt.Fprintf(w, "target: certified bound <= %s with the fewest weight bits, %s\n\n", target, chosen)
	sweep := SweepTable(r.Sweep, []PruneLevel{{}}, t.HideTimes)
	if r.Scheme != "" {
		sweep.Header[0] = "weight bits"
	}
	if err := sweep.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	switch {
	case r.Single.FracBits > 0:
		fmt.Fprintf(w, "smallest single %s with certified bound <= %s: %d (bound %s)\n", width, target, r.Single.FracBits, report.Up(float64(r.Single.Bound), 4))
	case r.Status == "":
		fmt.Fprintf(w, "no single %s tried has a certified bound <= %s: nothing to allocate from\n", width, target)
	}
	if r.Status != "" {
		fmt.Fprintf(w, "%s\n", r.Status)
	}
	if !r.Met() {
		return nil
	}
	fmt.Fprintln(w)
	if err := AllocationTable(r.Layers, r.SingleLayers).WriteText(w); err != nil {
		return err
	}
	fewer := 100 * float64(r.SingleBits-r.TotalBits) / float64(r.SingleBits)
	if r.Scheme != "" {
		fmt.Fprintf(w, "\nweight bits of a layer: weights x their bits + biases x 32 (int32), scales not counted\n")
	} else {
		fmt.Fprintf(w, "\nweight bits of a layer: (weights + biases) x (1 + IB + FB), a sign bit, IB integer bits, FB fractional bits each\n")
	}
	fmt.Fprintf(w, "total weight bits: %d per layer, %d at the single %s %d (%.1f%% fewer)\n", r.TotalBits, r.SingleBits, width, r.Single.FracBits, fewer)
	fmt.Fprintf(w, "certified bound %s <= %s; %d copies certified, %d steps taken down from %s %d\n", report.Up(float64(r.Bound), 4), target, r.Candidates, len(r.Steps), width, r.Start)
	if r.TimeBudgetHit {
		fmt.Fprintf(w, "note: the time budget stopped some SDPs (bounds hold, but the choice may depend on the machine's speed; --timeout 0 for none)\n")
	}
	if r.Saved != "" {
		fmt.Fprintf(w, "saved: %s (the copy chosen)\n", r.Saved)
	}
	return nil
}

// AllocationTable returns the per-layer table of an allocation, next to
// the single width's layers:
//
//	layer  weights  biases  IB  FB  bits  single FB  single bits
func AllocationTable(layers, single []LayerWidth) *report.Table {
	if len(layers) > 0 && layers[0].WeightBits > 0 {
		return int8AllocationTable(layers, single)
	}
	t := report.NewTable("layer", "weights", "biases", "IB", "FB", "bits", "single FB", "single bits")
	for k, l := range layers {
		t.AddRow(fmt.Sprint(l.Layer), fmt.Sprint(l.Weights), fmt.Sprint(l.Biases), fmt.Sprint(l.IntBits), fmt.Sprint(l.FracBits),
			fmt.Sprint(l.Bits), fmt.Sprint(single[k].FracBits), fmt.Sprint(single[k].Bits))
	}
	t.AddRow("total", "", "", "", "", fmt.Sprint(TotalBits(layers)), "", fmt.Sprint(TotalBits(single)))
	t.Align = make([]report.Align, len(t.Header))
	for i := range t.Align {
		t.Align[i] = report.Right
	}
	return t
}

// int8AllocationTable is AllocationTable for int8 layers: the width of
// each layer's weights in place of IB and FB.
func int8AllocationTable(layers, single []LayerWidth) *report.Table {
	t := report.NewTable("layer", "weights", "biases", "weight bits", "bits", "single weight bits", "single bits")
	for k, l := range layers {
		t.AddRow(fmt.Sprint(l.Layer), fmt.Sprint(l.Weights), fmt.Sprint(l.Biases), fmt.Sprint(l.WeightBits),
			fmt.Sprint(l.Bits), fmt.Sprint(single[k].WeightBits), fmt.Sprint(single[k].Bits))
	}
	t.AddRow("total", "", "", "", fmt.Sprint(TotalBits(layers)), "", fmt.Sprint(TotalBits(single)))
	t.Align = make([]report.Align, len(t.Header))
	for i := range t.Align {
		t.Align[i] = report.Right
	}
	return t
}

// Save saves the chosen copy to path (modelfile.Save) and records path
// in Saved. There must be a copy (Met).
func (r *AllocationResult) Save(path string) error { return saveChosen(r.Net, path, &r.Saved) }

// saveChosen saves net, the copy an allocation chose (nil: none meets
// the target, an error), to path (modelfile.Save) and records path in
// *saved.
func saveChosen(net *nn.Network, path string, saved *string) error {
	if net == nil {
		return fmt.Errorf("experiment: no allocation to save to %s: no width meets the target", path)
	}
	if err := modelfile.Save(path, net); err != nil {
		return err
	}
	*saved = path
	return nil
}

// HideTimes sets every run time to 0, so that the JSON form does not
// depend on the machine (for golden files).
func (r *AllocationResult) HideTimes() {
	for i := range r.Sweep {
		r.Sweep[i].Seconds = 0
	}
	if r.Record != nil {
		r.Record.Seconds, r.Record.SDP.Seconds = 0, 0
	}
}
