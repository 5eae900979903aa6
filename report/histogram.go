package report

import (
	"fmt"
	"math"
	"slices"
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
	counts := make([]float64, nbins)
	for _, x := range ratios {
		i := min(int(math.Log(x/lo)/step), nbins-1)
		counts[max(i, 0)]++
	}
	edge := func(i int) float64 { return lo * math.Exp(step*float64(i)) }

	title := r.Title
	if title == "" {
		title = fmt.Sprintf("Certified bound / observed error over %d samples", len(r.Bound))
		if zero > 0 {
			title += fmt.Sprintf(" (%d with zero error)", zero)
		}
	}
	p := newPlot(title, "bound / error (log scale)", "samples")
	ch := newChart(p)
	p.x.setLog(edge(0), edge(nbins))
	p.add(grid(false, true))
	p.add(func(c canvas, f frame) {
		outline := lineStyle{col: colGrid, width: 0.5}
		for i, n := range counts {
			if n == 0 {
				continue
			}
			b := rectPath(box{f.at(edge(i), n), f.at(edge(i+1), 0)})
			c.fill(b, colBound)
			c.stroke(append(b, b[0]), outline)
		}
	})
	st := lineStyle{col: colError, width: 1.5, dashes: []float64{5, 3}}
	p.add(vrules([]float64{median}, st))
	ch.key("median "+Float(median, 3), vruleKey(st))
	p.y.min, p.y.max = 0, slices.Max(counts)*1.08
	return ch.figure(), nil
}
