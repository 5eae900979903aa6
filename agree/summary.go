package agree

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/nnbound/nnbound/internal/cputime"
)

// Summary counts the verdicts of a shard's samples, those of earlier runs
// included, and the networks' accuracy on the samples themselves.
type Summary struct {
	Question string `json:"question"`
	Shard    string `json:"shard"`
	// Samples counts the samples with a record (Interrupted excluded).
	Samples  int `json:"samples"`
	Agree    int `json:"agree"`
	Disagree int `json:"disagree"`
	Unknown  int `json:"unknown"`
	Errors   int `json:"errors"`
	// Decided is (Agree + Disagree) / Samples.
	Decided float64 `json:"decided"`
	// Resumed counts the records taken from earlier runs; Interrupted
	// the samples left undecided by a cancellation.
	Resumed     int `json:"resumed"`
	Interrupted int `json:"interrupted"`
	// Labelled counts the samples with a label; CorrectF and CorrectG
	// those each network classifies right, AccuracyF and AccuracyG the
	// fractions (0 when none is labelled).
	Labelled  int     `json:"labelled"`
	CorrectF  int     `json:"correct_f"`
	CorrectG  int     `json:"correct_g"`
	AccuracyF float64 `json:"accuracy_f"`
	AccuracyG float64 `json:"accuracy_g"`
	// WallSeconds and CPUSeconds are this run's (the process's CPU time);
	// BallSeconds sums the samples' decision times, earlier runs' too.
	WallSeconds float64 `json:"seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	BallSeconds float64 `json:"ball_seconds"`
	// Records holds every record, in sample order.
	Records []Record `json:"-"`
}

// add counts r.
func (s *Summary) add(r Record) {
	s.Samples++
	switch r.Verdict {
	case Agree:
		s.Agree++
	case Disagree:
		s.Disagree++
	case Unknown:
		s.Unknown++
	default:
		s.Errors++
	}
	if r.Label >= 0 && r.Verdict != Error {
		s.Labelled++
		if r.ClassF == r.Label {
			s.CorrectF++
		}
		if r.ClassG == r.Label {
			s.CorrectG++
		}
	}
	s.BallSeconds += r.Seconds
	s.Records = append(s.Records, r)
}

// log writes r to the log w, counts it and reports it on report.
func (s *Summary) log(w, report io.Writer, r Record) error {
	if err := writeRecord(w, r); err != nil {
		return err
	}
	s.add(r)
	if report != nil {
		line := fmt.Sprintf("sample %d: %s", r.Index, r.Verdict)
		if r.Reason != "" {
			line += " (" + r.Reason + ")"
		}
		fmt.Fprintf(report, "%s, %d boxes, %.3g s\n", line, r.Nodes, r.Seconds)
	}
	return nil
}

// finish sets the rates and times, and sorts the records.
func (s *Summary) finish(start time.Time, cpu0 time.Duration) *Summary {
	if s.Samples > 0 {
		s.Decided = float64(s.Agree+s.Disagree) / float64(s.Samples)
	}
	if s.Labelled > 0 {
		s.AccuracyF = float64(s.CorrectF) / float64(s.Labelled)
		s.AccuracyG = float64(s.CorrectG) / float64(s.Labelled)
	}
	s.WallSeconds = time.Since(start).Seconds()
	s.CPUSeconds = (cputime.Process() - cpu0).Seconds()
	slices.SortFunc(s.Records, func(a, b Record) int { return a.Index - b.Index })
	return s
}

// WriteTable prints the summary for people:
//
//	question   f.onnx vs g.onnx, L-inf radius 0.00784
//	samples    450 (shard 0/1; 0 from earlier runs)
//	agree      437  97.1 %  certified: both networks pick one class on the whole ball
//	disagree   11    2.4 %  an input where the classes differ, evaluated again
//	unknown    2     0.4 %
//	decided    97.6 %
//	accuracy   f 96.4 %, g 96.2 % (450 labelled samples)
//	time       wall 30.1 s, CPU 58.3 s (this run)
func (s *Summary) WriteTable(w io.Writer) error {
	var b strings.Builder
	pct := func(n int) float64 {
		if s.Samples == 0 {
			return 0
		}
		return 100 * float64(n) / float64(s.Samples)
	}
	fmt.Fprintf(&b, "question   %s\n", s.Question)
	fmt.Fprintf(&b, "samples    %d (shard %s; %d from earlier runs", s.Samples, s.Shard, s.Resumed)
	if s.Interrupted > 0 {
		fmt.Fprintf(&b, "; %d interrupted, not counted", s.Interrupted)
	}
	b.WriteString(")\n")
	fmt.Fprintf(&b, "agree      %-5d %5.1f %%  certified: both networks pick one class on the whole ball\n", s.Agree, pct(s.Agree))
	fmt.Fprintf(&b, "disagree   %-5d %5.1f %%  an input where the classes differ, evaluated again\n", s.Disagree, pct(s.Disagree))
	fmt.Fprintf(&b, "unknown    %-5d %5.1f %%\n", s.Unknown, pct(s.Unknown))
	if s.Errors > 0 {
		fmt.Fprintf(&b, "errors     %-5d %5.1f %%  not decided (see the log); a rerun tries them again\n", s.Errors, pct(s.Errors))
	}
	fmt.Fprintf(&b, "decided    %.1f %%\n", 100*s.Decided)
	if s.Labelled > 0 {
		fmt.Fprintf(&b, "accuracy   f %.1f %%, g %.1f %% (%d labelled samples)\n", 100*s.AccuracyF, 100*s.AccuracyG, s.Labelled)
	} else {
		b.WriteString("accuracy   none (no labelled sample counted)\n")
	}
	fmt.Fprintf(&b, "time       wall %.3g s, CPU %.3g s (this run)\n", s.WallSeconds, s.CPUSeconds)
	_, err := io.WriteString(w, b.String())
	return err
}
