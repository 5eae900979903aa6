package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
)

// The parsers of flag values that cobra cannot type: lists, ranges and
// bounds. Every error is a usage error naming the flag.

// parseList parses the comma-separated list s, each item with parse (""
// or blanks give nil).
func parseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []T
	for _, p := range strings.Split(s, ",") {
		v, err := parse(p)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// parseBounds parses a comma-separated list of box ends for flag ("" gives
// nil).
func parseBounds(flag, s string) ([]float64, error) {
	return parseList(s, func(p string) (float64, error) { return parseBound(flag, p) })
}

// parseInts parses a comma-separated list of non-negative integers for
// flag ("" gives nil).
func parseInts(flag, s string) ([]int, error) {
	return parseList(s, func(p string) (int, error) {
		p = strings.TrimSpace(p)
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return 0, usagef("--%s: %q is not a whole number >= 0", flag, p)
		}
		return v, nil
	})
}

// parseFractions parses a comma-separated list of fractions in [0, 1] for
// flag ("" gives nil).
func parseFractions(flag, s string) ([]float64, error) {
	return parseList(s, func(p string) (float64, error) {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return 0, usagef("--%s: %q is not a fraction in [0, 1]", flag, p)
		}
		return v, nil
	})
}

// parseRange parses the --box value LO:HI.
func parseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, usagef("--box %q: want LO:HI, for example --box -1:1", s)
	}
	if lo, err = parseBound("box", a); err != nil {
		return 0, 0, err
	}
	if hi, err = parseBound("box", b); err != nil {
		return 0, 0, err
	}
	if lo > hi {
		return 0, 0, usagef("--box %s is inverted: lo %v > hi %v", s, lo, hi)
	}
	return lo, hi, nil
}

// parseBound parses one end of the box: a finite number.
func parseBound(flag, s string) (float64, error) {
	s = strings.TrimSpace(s)
	x, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && s == "":
		return 0, usagef("--%s: missing number", flag)
	case err != nil:
		return 0, usagef("--%s: %q is not a number", flag, s)
	case math.IsNaN(x):
		return 0, usagef("--%s: NaN is not a bound", flag)
	case math.IsInf(x, 0):
		return 0, usagef("--%s: %s is not a finite bound", flag, s)
	}
	return x, nil
}

// parseWidths parses the list of widths s of flag (quantise.ParseWidths),
// as a usage error.
func parseWidths(flag, s string) ([]int, error) {
	w, err := quantise.ParseWidths(s)
	if err != nil {
		return nil, usagef("--%s %s: %w", flag, s, err)
	}
	return w, nil
}

// int8Widths returns the weight widths of --bits under --scheme int8
// (quantise.ParseWidths, each 2 to 8 as quantise.Int8Options.Validate
// wants), after refusing the fixed-point flags fixedOnly that fs has set
// (nil fs: none set). Bad flags are usage errors.
func int8Widths(fs *pflag.FlagSet, bits string, fixedOnly ...string) ([]int, error) {
	for _, name := range fixedOnly {
		if fs != nil && fs.Changed(name) {
			return nil, usagef("--scheme int8 and --%s do not go together", name)
		}
	}
	w, err := parseWidths("bits", bits)
	if err != nil {
		return nil, err
	}
	if (quantise.Int8Options{Bits: 8, WeightBits: w}).Validate() != nil {
		return nil, usagef("--bits %s: want widths from 2 to 8", bits)
	}
	return w, nil
}

// count is the value of an integer flag that must not be negative.
type count struct {
	flag string // "--max-nodes"
	n    int
}

// checkLimits reports, as a usage error naming the flag and its value, a
// negative --timeout or a negative count.
func checkLimits(timeout time.Duration, counts ...count) error {
	if timeout < 0 {
		return usagef("--timeout %v: want 0 or more", timeout)
	}
	for _, c := range counts {
		if c.n < 0 {
			return usagef("%s %d: want 0 or more", c.flag, c.n)
		}
	}
	return nil
}

// checkOutput reports an --output index k that networks of n outputs do
// not have, as a usage error.
func checkOutput(k, n int) error {
	if k >= n {
		return usagef("--output %d: the networks have %d outputs (0..%d)", k, n, n-1)
	}
	return nil
}

// checkPlot reports a --plot file name that is not .png or .svg, as a
// usage error.
func checkPlot(path string) error {
	if report.CheckPath(path) != nil {
		return usagef("--plot %q: want a .png or .svg file name", path)
	}
	return checkOutDir("--plot", path)
}

// checkOutDir reports, as a usage error, an output file of flag whose
// directory does not exist or cannot be written, or that is itself a
// directory, so that no work is lost to a typo.
func checkOutDir(flag, path string) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usagef("%s %q: directory %s does not exist; create it or choose another", flag, path, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("%s %q is a directory; name a file", flag, path)
	}
	if err := atomicfile.Probe(dir); err != nil {
		return usagef("%s %q: %v", flag, path, err)
	}
	return nil
}

// checkMakeDir reports, as a usage error, an output directory dir of flag
// ("" for none) that could not be made or written: a path through a file,
// or one whose nearest existing directory takes no files. It leaves no
// file behind, so that the check before any work changes nothing.
func checkMakeDir(flag, dir string) error {
	for d := filepath.Clean(dir); dir != ""; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		switch {
		case err == nil && !fi.IsDir():
			return usagef("%s %q: %s is not a directory", flag, dir, d)
		case err == nil:
			if err := atomicfile.Probe(d); err != nil {
				return usagef("%s %q: %v", flag, dir, err)
			}
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return usagef("%s %q: %v", flag, dir, err)
		case d == filepath.Dir(d):
			return nil
		}
	}
	return nil
}

// positives is a pflag.Value for a list of positive finite numbers (verify's
// --epsilon): comma-separated, a repeated flag adding to the list. A value
// that is not positive is a usage error when the flag is parsed, which
// names the flag and the value (invalid argument "-1" for "--epsilon"
// flag: want a positive number), not an index into the list.
type positives struct {
	p   *[]float64
	set bool
}

// Set parses s and appends its numbers (replacing the default at the
// first use).
func (v *positives) Set(s string) error {
	xs, err := parseList(s, func(p string) (float64, error) {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		switch {
		case (err != nil || !(x > 0) || math.IsInf(x, 0)) && strings.Contains(s, ","):
			return 0, fmt.Errorf("%s is not a positive number", strings.TrimSpace(p))
		case err != nil || !(x > 0) || math.IsInf(x, 0):
			return 0, errors.New("want a positive number")
		}
		return x, nil
	})
	if err != nil {
		return err
	}
	if !v.set {
		*v.p, v.set = nil, true
	}
	*v.p = append(*v.p, xs...)
	return nil
}

// String returns the list as "[a,b]", or "" when it is empty (-h then
// prints no default).
func (v *positives) String() string {
	if v.p == nil || len(*v.p) == 0 {
		return ""
	}
	parts := make([]string, len(*v.p))
	for i, x := range *v.p {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Type names the value in -h.
func (v *positives) Type() string { return "float64Slice" }
