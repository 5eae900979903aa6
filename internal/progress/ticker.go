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
	noun  string // what the log's lines count: "SDPs certified"
	start time.Time
	sdps  int
	done  chan struct{}
	wg    sync.WaitGroup
}

// StartTicker starts a ticker on stderr for a certification whose log
// goes to *log (certify.Options.Log), setting *log to the ticker, and
// returns the function that stops it. Off a terminal, or with *log
// already set, it does nothing.
func StartTicker(stderr io.Writer, label string, log *io.Writer) (stop func()) {
	return StartCounting(stderr, label, "SDPs certified", log)
}

// StartCounting is StartTicker counting the log's "certify:" lines as
// noun ("passes of bound propagation"):
//
//	certifying  3 passes of bound propagation  0:41
func StartCounting(stderr io.Writer, label, noun string, log *io.Writer) (stop func()) {
	f, ok := stderr.(*os.File)
	if !ok || *log != nil || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	t := &ticker{w: stderr, label: label, noun: noun, start: time.Now(), done: make(chan struct{})}
	*log = t
	t.wg.Add(1)
	go t.loop()
	return func() {
		close(t.done)
		t.wg.Wait()
		fmt.Fprint(t.w, "\r\x1b[K")
	}
}

// Write counts the certify log's lines of certified SDPs.
func (t *ticker) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.sdps += bytes.Count(p, []byte("certify:"))
	t.mu.Unlock()
	return len(p), nil
}

// loop redraws the line until stopped, first after a second so that
// quick runs print nothing.
func (t *ticker) loop() {
	defer t.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-t.done:
			return
		case now := <-tick.C:
			t.mu.Lock()
			n := t.sdps
			t.mu.Unlock()
			s := int(now.Sub(t.start).Seconds())
			fmt.Fprintf(t.w, "\r%s  %d %s  %d:%02d\x1b[K", t.label, n, t.noun, s/60, s%60)
		}
	}
}
