package report

import (
	"math"
	"strconv"
)

// logTicks marks decades on a log axis, labelled "0.01", "1", "1e5",
// with unlabelled minor ticks at 2..9; over less than a decade it labels
// 2 and 5 as well, over more than eight it labels every other decade.
func logTicks(lo, hi float64) []tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	first := int(math.Floor(math.Log10(lo)))
	last := int(math.Ceil(math.Log10(hi)))
	span := last - first
	var ticks []tick
	for e := first; e <= last; e++ {
		dec := math.Pow10(e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * dec
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			label := ""
			switch {
			case m == 1 && (span <= 8 || (e-first)%2 == 0):
				label = tickLabel(v)
			case span <= 3 && (m == 2 || m == 5), span <= 1 && m == 3:
				label = tickLabel(v)
			}
			ticks = append(ticks, tick{v, label})
		}
	}
	return ticks
}

// linTicks labels a linear axis every 1, 2, 2.5 or 5 times a power of
// ten, about six labels over the range, with unlabelled ticks between.
func linTicks(lo, hi float64) []tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	raw := (hi - lo) / 6
	p := math.Pow10(int(math.Floor(math.Log10(raw))))
	step := 10 * p
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var ticks []tick
	for k := math.Ceil(lo / step * 2); k/2*step <= hi*(1+1e-12); k++ {
		v := k / 2 * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		label := ""
		if int(k)%2 == 0 {
			label = strconv.FormatFloat(v, 'g', 12, 64)
		}
		ticks = append(ticks, tick{v, label})
	}
	return ticks
}

// tickLabel writes a power-of-ten multiple plainly between 1e-4 and 1e4
// ("0.001", "5000") and in exponent form outside ("1e-7", "2e5").
func tickLabel(v float64) string {
	if v >= 1e-4 && v < 1e4 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return Float(v, 1)
}

// logRange returns the range of a log axis holding the positive, finite
// values of vs, widened to at least a factor 4 and limited to floor
// decades below the largest value; ok is false if no value is positive.
func logRange(floor float64, vs ...[]float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), 0
	for _, v := range vs {
		for _, x := range v {
			if x > 0 && !math.IsInf(x, 0) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	if hi == 0 {
		return 0, 0, false
	}
	lo = max(lo, hi*math.Pow10(-int(floor)))
	if hi/lo < 4 {
		mid := math.Sqrt(hi * lo)
		lo, hi = mid/2, mid*2
	}
	// Room above for the largest values, a little below.
	return lo / 1.25, hi * 1.6, true
}

// positiveRuns splits the points (x[i], y[i]) into runs of consecutive
// points with positive, finite y, for lines on a log scale.
func positiveRuns(x, y []float64) [][2][]float64 {
	var runs [][2][]float64
	var cx, cy []float64
	flush := func() {
		if len(cx) > 0 {
			runs = append(runs, [2][]float64{cx, cy})
		}
		cx, cy = nil, nil
	}
	for i := range x {
		if y[i] > 0 && !math.IsInf(y[i], 0) && !math.IsNaN(x[i]) {
			cx, cy = append(cx, x[i]), append(cy, y[i])
			continue
		}
		flush()
	}
	flush()
	return runs
}
