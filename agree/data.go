package agree

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/internal/jsonpos"
)

// ErrData reports a test set that cannot be read.
var ErrData = errors.New("invalid test set")

// Sample is one input of a test set, flattened row-major, with its label
// (-1 when the set has none).
type Sample struct {
	Index int
	X     []float64
	Label int
}

// Read reads a test set in the format its name says (see the package
// documentation): .json, .csv or .npy (labels, if any, from labels, a
// .npy or a text file of one integer a line; "" for none). Every sample
// must have the same size and finite values.
func Read(path, labels string) ([]Sample, error) {
	var xs [][]float64
	var ys []int
	var err error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		xs, ys, err = readJSON(path)
	case ".csv":
		xs, ys, err = readCSV(path)
	case ".npy":
		xs, err = readNpyFile(path)
	default:
		return nil, fmt.Errorf("agree: %s: unknown format (want .json, .csv or .npy): %w", path, ErrData)
	}
	if err != nil {
		return nil, err
	}
	if labels != "" {
		if ys != nil {
			return nil, fmt.Errorf("agree: %s holds labels already, and %s gives more: %w", path, labels, ErrData)
		}
		if ys, err = readLabels(labels); err != nil {
			return nil, err
		}
	}
	return samples(path, xs, ys)
}

// samples checks the inputs and labels read from path and pairs them.
func samples(path string, xs [][]float64, ys []int) ([]Sample, error) {
	if len(xs) == 0 {
		return nil, fmt.Errorf("agree: %s holds no sample: %w", path, ErrData)
	}
	if ys != nil && len(ys) != len(xs) {
		return nil, fmt.Errorf("agree: %s: %d samples, %d labels: %w", path, len(xs), len(ys), ErrData)
	}
	out := make([]Sample, len(xs))
	for i, x := range xs {
		if len(x) != len(xs[0]) || len(x) == 0 {
			return nil, fmt.Errorf("agree: %s: sample %d has %d values, sample 0 has %d: %w", path, i, len(x), len(xs[0]), ErrData)
		}
		for j, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("agree: %s: sample %d, value %d is %v: %w", path, i, j, v, ErrData)
			}
		}
		out[i] = Sample{Index: i, X: x, Label: -1}
		if ys != nil {
			if ys[i] < 0 {
				return nil, fmt.Errorf("agree: %s: label %d is %d, want a class index >= 0: %w", path, i, ys[i], ErrData)
			}
			out[i].Label = ys[i]
		}
	}
	return out, nil
}

// readJSON reads {"inputs": [[...], ...], "labels": [...]}; the inputs
// may be nested arrays (images), flattened row-major.
func readJSON(path string) ([][]float64, []int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("agree: %w", err)
	}
	var v struct {
		Inputs []json.RawMessage `json:"inputs"`
		Labels []int             `json:"labels"`
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, nil, fmt.Errorf("agree: %s is empty: %w", path, ErrData)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, nil, fmt.Errorf("agree: %s%s: %s: %w", path, jsonpos.Position(b, err), jsonError(b, err), ErrData)
	}
	xs := make([][]float64, len(v.Inputs))
	for i, raw := range v.Inputs {
		var x any
		if err := json.Unmarshal(raw, &x); err != nil {
			return nil, nil, fmt.Errorf("agree: %s: input %d: %v: %w", path, i, err, ErrData)
		}
		if xs[i], err = flatten(x, nil); err != nil {
			return nil, nil, fmt.Errorf("agree: %s: input %d: %w", path, i, err)
		}
	}
	return xs, v.Labels, nil
}

// jsonError describes err, an error of decoding the JSON text b; NaN and
// Infinity, which Python's json module writes, are named.
func jsonError(b []byte, err error) string {
	if jsonpos.NonFinite(b, err) {
		return "NaN and Infinity are not numbers in JSON (the values must be finite)"
	}
	return err.Error()
}

// flatten appends the numbers of nested JSON arrays to dst, row-major.
func flatten(v any, dst []float64) ([]float64, error) {
	switch t := v.(type) {
	case float64:
		return append(dst, t), nil
	case []any:
		for _, e := range t {
			var err error
			if dst, err = flatten(e, dst); err != nil {
				return nil, err
			}
		}
		return dst, nil
	}
	return nil, fmt.Errorf("%v is not a number or an array: %w", v, ErrData)
}

// readCSV reads one sample a row. A first row that is not all numbers is
// a header; its column named "label", if any, holds the labels.
func readCSV(path string) ([][]float64, []int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("agree: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	labelCol := -1
	var xs [][]float64
	var ys []int
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("agree: %s: %v: %w", path, err, ErrData)
		}
		if line == 1 && !numeric(rec) {
			for j, h := range rec {
				if strings.EqualFold(strings.TrimSpace(h), "label") {
					labelCol = j
				}
			}
			continue
		}
		x := make([]float64, 0, len(rec))
		for j, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, nil, fmt.Errorf("agree: %s:%d: column %d: %q is not a number: %w", path, line, j+1, s, ErrData)
			}
			if j != labelCol {
				x = append(x, v)
				continue
			}
			if v != math.Trunc(v) {
				return nil, nil, fmt.Errorf("agree: %s:%d: label %q is not an integer: %w", path, line, s, ErrData)
			}
			ys = append(ys, int(v))
		}
		xs = append(xs, x)
	}
	return xs, ys, nil
}

// numeric reports whether every field of rec is a number.
func numeric(rec []string) bool {
	for _, s := range rec {
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return false
		}
	}
	return true
}

// readLabels reads labels from a .npy file or a text file of one integer
// a line.
func readLabels(path string) ([]int, error) {
	if strings.EqualFold(filepath.Ext(path), ".npy") {
		rows, err := readNpyFile(path)
		if err != nil {
			return nil, err
		}
		ys := make([]int, len(rows))
		for i, r := range rows {
			if len(r) != 1 || r[0] != math.Trunc(r[0]) {
				return nil, fmt.Errorf("agree: %s: label %d is not one integer: %w", path, i, ErrData)
			}
			ys[i] = int(r[0])
		}
		return ys, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agree: %w", err)
	}
	var ys []int
	for i, s := range strings.Fields(string(b)) {
		y, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("agree: %s: label %d, %q, is not an integer: %w", path, i, s, ErrData)
		}
		ys = append(ys, y)
	}
	return ys, nil
}
