package verify

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestReportWrite checks the CPU time after a decision: a "cpu" line
// after the text, "cpu_seconds" last in the JSON object, and both hidden
// by HideTimes.
func TestReportWrite(t *testing.T) {
	res := &Top1Result{Status: Holds, Class: 2, Nodes: 3}
	for _, c := range []struct {
		r    Report
		want string // the end of the output
	}{
		{Report{CPU: 1500 * time.Millisecond}, "cpu       1.5 s (the process's CPU time, all threads)\n"},
		{Report{CPU: time.Second, HideTimes: true}, "cpu       - s (the process's CPU time, all threads)\n"},
		{Report{JSON: true, CPU: 1500 * time.Millisecond}, `"cpu_seconds": 1.5` + "\n}\n"},
		{Report{JSON: true, CPU: time.Second, HideTimes: true}, `"cpu_seconds": 0` + "\n}\n"},
	} {
		var b bytes.Buffer
		if err := c.r.Write(&b, res); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), c.want) {
			t.Errorf("%+v: output ends\n%s\nwant the end\n%s", c.r, b.String(), c.want)
		}
		if c.r.JSON {
			var m map[string]any
			if err := json.Unmarshal(b.Bytes(), &m); err != nil || m["verdict"] != "holds" {
				t.Errorf("%+v: not the result's JSON object (%v): %s", c.r, err, b.String())
			}
		} else if !strings.HasPrefix(b.String(), "verdict   holds") {
			t.Errorf("%+v: not the result's text: %s", c.r, b.String())
		}
	}
}
