package report

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Ratios is the data of the figure for three or more inputs: the bound and
// the error at sampled inputs.
type Ratios struct {
	Title string // default "Certified bound / observed error over N samples"
	// Bound[k] and Error[k] are the certified bound and the observed
	// error at sample k.
	Bound, Error []float64
}

// RatioHistogram draws a histogram of Bound[k] / Error[k] over the
// samples, on a log axis with bins of equal width in log scale, and marks
// the median. Samples with zero error are left out and counted in the
// title.
func RatioHistogram(r Ratios) (*Figure, error) {
	if len(r.Bound) != len(r.Error) {
		return nil, fmt.Errorf("report: ratio histogram has %d bounds and %d errors: %w", len(r.Bound), len(r.Error), ErrData)
	}
	var ratios []float64
	zero := 0
	for k := range r.Bound {
		switch b, e := r.Bound[k], r.Error[k]; {
		case e == 0:
			zero++
		case b > 0 && e > 0 && !math.IsInf(b, 0):
			ratios = append(ratios, b/e)
		}
	}
	if len(ratios) == 0 {
		return nil, fmt.Errorf("report: ratio histogram has no sample with a positive error and bound: %w", ErrData)
	}
	slices.Sort(ratios)
	median := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		median = math.Sqrt(ratios[len(ratios)/2-1] * ratios[len(ratios)/2])
	}
	lo, hi := ratios[0], ratios[len(ratios)-1]
	if hi/lo < 1.01 {
		lo, hi = lo/1.1, hi*1.1
	}
	nbins := min(max(int(math.Sqrt(float64(len(ratios)))), 5), 40)
	step := math.Log(hi/lo) / float64(nbins)
	bins := make([]plotter.HistogramBin, nbins)
	for i := range bins {
		bins[i].Min = lo * math.Exp(step*float64(i))
		bins[i].Max = lo * math.Exp(step*float64(i+1))
	}
	for _, x := range ratios {
		i := min(int(math.Log(x/lo)/step), nbins-1)
		bins[max(i, 0)].Weight++
	}

	title := r.Title
	if title == "" {
		title = fmt.Sprintf("Certified bound / observed error over %d samples", len(r.Bound))
		if zero > 0 {
			title += fmt.Sprintf(" (%d with zero error)", zero)
		}
	}
	p := newPlot(title, "bound / error (log scale)", "samples")
	ch := newChart(p)
	setLog(&p.X, bins[0].Min, bins[nbins-1].Max)
	p.Add(grid{y: true})
	h := &plotter.Histogram{Bins: bins, Width: step, FillColor: colBound,
		LineStyle: draw.LineStyle{Color: colGrid, Width: vg.Points(0.5)}}
	p.Add(h)
	m := vrules{X: []float64{median}, Style: draw.LineStyle{Color: colError, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
	p.Add(m)
	ch.key("median "+Float(median, 3), m)
	top := 0.0
	for _, b := range bins {
		top = max(top, b.Weight)
	}
	p.Y.Min, p.Y.Max = 0, top*1.08
	return ch.figure(), nil
}
