package experiment

import (
	"context"
	"fmt"
	"math"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/report"
)

// Reference holds the rows of the paper's Tables 1 and 2 (MOSEK
// through YALMIP, averages over 100 runs): l, gamma_x, gamma_x1, gamma_x2,
// gamma, mean(T), max(T), min(T), run time (s); nil for the experiments
// that are not tables. An array rather than a map, so that it is static
// data and costs nothing at the start of every command that links it.
var Reference = [len(paperNames)][][9]string{ // Tables 1 and 2 of Appendix 7
	Table1: {
		{"1", "14.9723", "0.3027", "0.0829", "1.7490", "3.3721", "20.0648", "1.0332", "1.1667"},
		{"2", "181.1923", "18.6963", "11.9055", "52.5948", "5.0755", "21.7170", "2.3473", "2.9527"},
		{"3", "1432.4", "351.5557", "259.4226", "613.1431", "6.0144", "22.6888", "3.3431", "18.7965"},
		{"4", "16532", "7309.7", "5344.7", "6775.3", "7.1827", "24.2606", "4.2432", "78.6121"},
	},
	Table2: {
		{"1", "0.0000", "1.0730", "0.0705", "2.3730", "2.7206", "8.7061", "0.8257", "0.8629"},
		{"2", "0.0000", "19.9720", "0.5333", "27.7495", "3.9042", "10.3077", "1.8512", "3.4178"},
		{"3", "0.0006", "190.4040", "5.9258", "558.7039", "4.6004", "10.2126", "2.6929", "19.8407"},
		{"4", "0.00870", "1065.9", "61.1359", "10893", "6.0101", "11.5699", "3.8971", "87.7687"},
	},
}

// Figure draws the figure of an experiment from its tasks, their
// certificates (in the order of Tasks) and its rows (Aggregate) over runs
// runs per row: the worst-case sweep, or Figure of the first certified
// run (at l = 2 when there is one). It returns nil when nothing was
// certified.
func (s *Setup) Figure(ctx context.Context, tasks []Task, certs []*certify.Certificate, rows []Row, runs int) (*report.Figure, error) {
	if s.Exp == Sweep {
		se := report.SweepSeries{}
		for _, r := range rows {
			se.X = append(se.X, float64(r.FracBits))
			se.Bound = append(se.Bound, float64(r.Bound))
			se.Error = append(se.Error, float64(r.Observed))
		}
		return report.SweepFigure(report.Sweep{Title: fmt.Sprintf("Mean worst case over %d random l = 2 networks", runs),
			XLabel: "fractional bits FB of the quantised copy", Series: []report.SweepSeries{se}, Chosen: math.NaN()})
	}
	pick := -1
	for i, t := range tasks {
		if certs[i] != nil && certs[i].Certified() && (pick < 0 || (t.Layers == 2 && tasks[pick].Layers != 2)) {
			pick = i
		}
	}
	if pick < 0 {
		return nil, nil // nothing certified: no figure
	}
	t := tasks[pick]
	f1, f2, o, err := s.Instance(t)
	if err != nil {
		return nil, err
	}
	title := fmt.Sprintf("%s example: l = %d, network seed %d", s.Exp.Title(), t.Layers, NetSeed(s.Seed, t.Layers, t.Run))
	return Figure(ctx, f1, f2, PaperBox(), o, certs[pick], title)
}
