// Package progress draws a one-line progress bar on a terminal:
//
//	table1 l=2  [==========>          ]  52/100  52%  0:41 left
//
// The bar is drawn only when its writer is a terminal (an *os.File for
// which golang.org/x/term reports IsTerminal); otherwise every method is a
// cheap no-op, so that redirected output and logs stay clean. Redraws are
// throttled, so calling Add in a tight loop costs a mutex and a clock read.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Bar is a progress bar. A nil *Bar is valid and does nothing. A Bar is
// safe for concurrent use.
type Bar struct {
	mu     sync.Mutex
	w      io.Writer
	label  string
	total  int
	done   int
	width  int // of the terminal line
	start  time.Time
	last   time.Time // of the last draw
	now    func() time.Time
	every  time.Duration
	drawn  bool // a line is on the screen
	closed bool
	// newline prints each draw as a line of its own (Lines).
	newline bool
}

// Quiet wraps w so that the bars and tickers of this package draw nothing
// on it (nnbound --quiet); writes go through to w.
func Quiet(w io.Writer) io.Writer { return quiet{w} }

// Lines wraps w so that the bars and tickers of this package draw on it
// even when it is not a terminal, as whole lines every two seconds
// instead of one line redrawn in place (nnbound --progress, for logs);
// writes go through to w.
func Lines(w io.Writer) io.Writer { return lines{w} }

type (
	quiet struct{ io.Writer }
	lines struct{ io.Writer }
)

// lineEvery is how often a bar or ticker on Lines prints a line.
const lineEvery = 2 * time.Second

// New returns a bar counting to total with a label, drawn on w when w is a
// terminal or wrapped by Lines, or nil (a silent bar) otherwise.
func New(w io.Writer, label string, total int) *Bar {
	switch w.(type) {
	case quiet:
		return nil
	case lines:
		b := newBar(w, label, total, 80, time.Now)
		b.every, b.newline = lineEvery, true
		return b
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width < 20 {
		width = 80
	}
	b := newBar(w, label, total, width, time.Now)
	b.mu.Lock()
	b.maybeDraw() // show the bar at once, not at the first step
	b.mu.Unlock()
	return b
}

// newBar returns a bar that always draws on w (for tests).
func newBar(w io.Writer, label string, total, width int, now func() time.Time) *Bar {
	t := now()
	return &Bar{w: w, label: label, total: max(total, 0), width: width, start: t, now: now, every: 100 * time.Millisecond}
}

// Add advances the bar by n steps.
func (b *Bar) Add(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = min(b.done+n, b.total)
	b.maybeDraw()
}

// SetLabel changes the label (for example to the current stage).
func (b *Bar) SetLabel(label string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.label = label
	b.maybeDraw()
}

// Clear erases the bar from the terminal so that other output can be
// printed; the next Add draws it again.
func (b *Bar) Clear() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.erase()
}

// Done erases the bar for good.
func (b *Bar) Done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.erase()
	b.closed = true
}

// erase removes the drawn line, if any (a line of Lines stays).
func (b *Bar) erase() {
	if b.drawn && !b.newline {
		fmt.Fprint(b.w, "\r\x1b[K")
		b.drawn = false
	}
}

// maybeDraw redraws unless the last draw was recent (the first and the
// final step are always drawn).
func (b *Bar) maybeDraw() {
	if b.closed {
		return
	}
	t := b.now()
	if b.drawn && b.done < b.total && t.Sub(b.last) < b.every {
		return
	}
	b.last = t
	if b.newline {
		fmt.Fprintln(b.w, b.line(t.Sub(b.start)))
	} else {
		fmt.Fprint(b.w, "\r"+b.line(t.Sub(b.start))+"\x1b[K")
	}
	b.drawn = true
}

// line formats the bar after elapsed time.
func (b *Bar) line(elapsed time.Duration) string {
	frac := 1.0
	if b.total > 0 {
		frac = float64(b.done) / float64(b.total)
	}
	count := fmt.Sprintf("%*d/%d", len(fmt.Sprint(b.total)), b.done, b.total)
	tail := fmt.Sprintf("  %s  %3.0f%%", count, 100*frac)
	if b.done > 0 && b.done < b.total {
		left := time.Duration(float64(elapsed) * (1/frac - 1))
		tail += "  " + clock(left) + " left"
	} else if b.done == b.total {
		tail += "  " + clock(elapsed)
	}
	label := b.label
	if label != "" {
		label += "  "
	}
	// The bar takes what the label and the longest tail leave, within
	// [10, 40], so that its width does not change as the run goes on.
	reserve := len(fmt.Sprintf("  %d/%d  100%%  0:00:00 left", b.total, b.total))
	room := b.width - 1 - len(label) - reserve - 2
	if room < 10 {
		s := fmt.Sprintf("%s%s %3.0f%%", label, count, 100*frac)
		if len(s) >= b.width {
			s = s[:max(b.width-1, 0)]
		}
		return s
	}
	room = min(room, 40)
	filled := int(frac * float64(room))
	bar := strings.Repeat("=", filled)
	if filled < room {
		bar += ">" + strings.Repeat(" ", room-filled-1)
	}
	return label + "[" + bar + "]" + tail
}

// clock formats d as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
