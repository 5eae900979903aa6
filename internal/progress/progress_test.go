package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

func TestSilentUnlessTerminal(t *testing.T) {
	var buf bytes.Buffer
	if b := New(&buf, "x", 10); b != nil {
		t.Fatal("bar on a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "p")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b := New(f, "x", 10); b != nil {
		t.Fatal("bar on a regular file")
	}
	var nilBar *Bar // every method of a nil bar is a no-op
	nilBar.Add(1)
	nilBar.SetLabel("y")
	nilBar.Clear()
	nilBar.Done()
}

func TestLine(t *testing.T) {
	cases := []struct {
		name     string
		label    string
		done     int
		total    int
		width    int
		elapsed  time.Duration
		expected string
	}{
		{"start", "sweep", 0, 12, 60, 0, "sweep  [>                      ]   0/12    0%"},
		{"half", "sweep", 6, 12, 60, 30 * time.Second, "sweep  [===========>           ]   6/12   50%  0:30 left"},
		{"end", "sweep", 12, 12, 60, 75 * time.Second, "sweep  [=======================]  12/12  100%  1:15"},
		{"narrow", "sweep", 6, 12, 30, 3 * time.Hour, "sweep   6/12  50%"},
		{"wide", "", 1, 4, 200, time.Second, "[==========>                             ]  1/4   25%  0:03 left"},
		{"empty", "nothing", 0, 0, 60, 0, "nothing  [=======================]  0/0  100%  0:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBar(nil, c.label, c.total, c.width, time.Now)
			b.done = c.done
			got := b.line(c.elapsed)
			if got != c.expected {
				t.Errorf("line\n got %q\nwant %q", got, c.expected)
			}
			if len(got) >= c.width {
				t.Errorf("line of %d characters on a terminal of %d", len(got), c.width)
			}
		})
	}
}

func TestThrottle(t *testing.T) {
	var buf bytes.Buffer
	clockNow := time.Unix(0, 0)
	b := newBar(&buf, "run", 1000, 80, func() time.Time { return clockNow })
	for range 999 {
		b.Add(1) // the clock does not move: only the first step draws
	}
	if n := strings.Count(buf.String(), "\r"); n != 1 {
		t.Errorf("%d draws in a burst, want 1", n)
	}
	clockNow = clockNow.Add(time.Second)
	b.Add(1) // the final step always draws
	if !strings.Contains(buf.String(), "1000/1000") {
		t.Errorf("final state not drawn: %q", buf.String())
	}
	b.Done()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Errorf("Done did not erase the line: %q", buf.String())
	}
	n := buf.Len()
	b.Add(1)
	if buf.Len() != n {
		t.Error("bar drew after Done")
	}
}
