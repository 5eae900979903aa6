package progress

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// ticker shows, on a terminal only, that a certification is running: how
// many SDPs it has certified and for how long,
//
//	certifying  5 SDPs certified  0:12
//
// redrawn in place on stderr and erased when it stops. The count comes
// from certify's log (one "certify:" line per certified SDP), which the
// ticker reads through certify.Options.Log; under -v the log goes to the
// user instead and the ticker stays silent.
type ticker struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	start time.Time
	sdps  int
	// status, when set (SetStatus), is shown instead of the count.
	status string
	// every is the time between draws; newline prints each as a line of
	// its own (Lines).
	every   time.Duration
	newline bool
	done    chan struct{}
	wg      sync.WaitGroup
}

// StartStatus starts a ticker on stderr for a certification whose log
// goes to *log (certify.Options.Log), setting *log to the ticker, and
// returns the function that stops it and the function setting the
// status shown in place of the count of SDPs (the bound so far, say),
//
//	certifying  bound 0.0123, found 0.0101, ratio 1.22, 31 pieces  0:12
//
// first drawn after two seconds, so that quick runs print nothing. Off a
// terminal, or with *log already set, both functions do nothing.
func StartStatus(stderr io.Writer, label string, log *io.Writer) (stop func(), status func(string)) {
	_, forced := stderr.(lines)
	if f, ok := stderr.(*os.File); *log != nil || !forced && (!ok || !term.IsTerminal(int(f.Fd()))) {
		return func() {}, func(string) {}
	}
	t := &ticker{w: stderr, label: label, start: time.Now(), done: make(chan struct{}), every: time.Second}
	if forced {
		t.every, t.newline = lineEvery, true
	}
	*log = t
	t.wg.Add(1)
	go t.loop()
	stop = func() {
		close(t.done)
		t.wg.Wait()
		if !t.newline {
			fmt.Fprint(t.w, "\r\x1b[K")
		}
	}
	return stop, t.setStatus
}

// setStatus sets the status shown.
func (t *ticker) setStatus(s string) {
	t.mu.Lock()
	t.status = s
	t.mu.Unlock()
}

// Write counts the certify log's lines of certified SDPs.
func (t *ticker) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.sdps += bytes.Count(p, []byte("certify:"))
	t.mu.Unlock()
	return len(p), nil
}

// loop redraws the line every t.every until stopped, first after two
// seconds so that quick runs print nothing.
func (t *ticker) loop() {
	defer t.wg.Done()
	tick := time.NewTicker(t.every)
	defer tick.Stop()
	for {
		select {
		case <-t.done:
			return
		case now := <-tick.C:
			s := int(now.Sub(t.start).Seconds())
			if s < 2 {
				continue
			}
			t.mu.Lock()
			what := t.status
			if what == "" {
				what = fmt.Sprintf("%d SDPs certified", t.sdps)
			}
			t.mu.Unlock()
			if t.newline {
				fmt.Fprintf(t.w, "%s  %s  %d:%02d\n", t.label, what, s/60, s%60)
			} else {
				fmt.Fprintf(t.w, "\r%s  %s  %d:%02d\x1b[K", t.label, what, s/60, s%60)
			}
		}
	}
}
