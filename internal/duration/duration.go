// Package duration is the one flag type of nnbound's commands for a length
// of time: a Go duration ("90s", "1m30s", "500ms") or a bare number of
// seconds ("90", "0.5"), the unit of instances.csv and --timeout-scale.
package duration

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Parse reads s as a Go duration or, when it is a bare number, as that
// many seconds. NaN, infinities and numbers of seconds beyond the range
// of time.Duration (about 292 years) are errors.
func Parse(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	x, err := strconv.ParseFloat(t, 64)
	if err != nil {
		d, err := time.ParseDuration(t)
		if err != nil {
			return 0, fmt.Errorf("%q is neither a number of seconds nor a duration such as 90s or 1m30s", s)
		}
		return d, nil
	}
	ns := x * float64(time.Second)
	if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
		return 0, fmt.Errorf("%q seconds is out of range", s)
	}
	return time.Duration(math.Round(ns)), nil
}

// Value is a pflag.Value setting a time.Duration by Parse.
type Value struct{ d *time.Duration }

// String returns the duration as Go writes it ("5m0s").
func (v Value) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

// Set parses s (see Parse).
func (v Value) Set(s string) error {
	d, err := Parse(s)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

// Type names the flag's value in -h.
func (v Value) Type() string { return "duration" }

// Var defines the flag name of fs, setting *p, with *p as its default;
// -h prints usage followed by a note that a bare number is seconds.
func Var(fs *pflag.FlagSet, p *time.Duration, name, usage string) *pflag.Flag {
	fs.Var(Value{p}, name, usage+"; a duration, or a number of seconds")
	return fs.Lookup(name)
}
