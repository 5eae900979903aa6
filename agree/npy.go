package agree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// readNpyFile reads a NumPy .npy file (readNpy).
func readNpyFile(path string) ([][]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agree: %w", err)
	}
	rows, err := readNpy(b)
	if err != nil {
		return nil, fmt.Errorf("agree: %s: %w", path, err)
	}
	return rows, nil
}

// npyDescr matches the header fields readNpy needs.
var (
	npyDescr   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	npyFortran = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	npyShape   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// readNpy decodes a .npy array (format versions 1 to 3) in C order of
// shape (N, d1, d2, ...) into N rows of d1*d2*... values, or of shape
// (N,) into N rows of one value. The element types read are
// little-endian float32, float64, int32, int64 and uint8, int8, bool.
func readNpy(b []byte) ([][]float64, error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("not a .npy file (no magic string): %w", ErrData)
	}
	var hlen, start int
	switch b[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, fmt.Errorf(".npy header cut short: %w", ErrData)
		}
		hlen, start = int(binary.LittleEndian.Uint32(b[8:12])), 12
	default:
		return nil, fmt.Errorf(".npy format version %d unknown: %w", b[6], ErrData)
	}
	if start+hlen > len(b) {
		return nil, fmt.Errorf(".npy header cut short: %w", ErrData)
	}
	h := string(b[start : start+hlen])
	d, f, s := npyDescr.FindStringSubmatch(h), npyFortran.FindStringSubmatch(h), npyShape.FindStringSubmatch(h)
	if d == nil || f == nil || s == nil {
		return nil, fmt.Errorf(".npy header %q lacks descr, fortran_order or shape: %w", strings.TrimSpace(h), ErrData)
	}
	if f[1] == "True" {
		return nil, fmt.Errorf(".npy array in Fortran order (save it in C order): %w", ErrData)
	}
	var shape []int
	for _, t := range strings.Split(s[1], ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			return nil, fmt.Errorf(".npy shape (%s): %w", s[1], ErrData)
		}
		shape = append(shape, n)
	}
	if len(shape) == 0 {
		return nil, fmt.Errorf(".npy array is a scalar, want one sample a row: %w", ErrData)
	}
	width := 1
	for _, n := range shape[1:] {
		width *= n
	}
	size, read, err := npyElement(d[1])
	if err != nil {
		return nil, err
	}
	data := b[start+hlen:]
	if len(data) < shape[0]*width*size {
		return nil, fmt.Errorf(".npy data has %d bytes, shape (%s) of %s needs %d: %w", len(data), s[1], d[1], shape[0]*width*size, ErrData)
	}
	rows := make([][]float64, shape[0])
	r := bytes.NewReader(data)
	for i := range rows {
		rows[i] = make([]float64, width)
		for j := range rows[i] {
			if rows[i][j], err = read(r); err != nil {
				return nil, fmt.Errorf(".npy data: %v: %w", err, ErrData)
			}
		}
	}
	return rows, nil
}

// npyElement returns the size and the reader of the element type descr.
func npyElement(descr string) (int, func(io.Reader) (float64, error), error) {
	le := binary.LittleEndian
	switch descr {
	case "<f4":
		return 4, func(r io.Reader) (float64, error) {
			var v uint32
			err := binary.Read(r, le, &v)
			return float64(math.Float32frombits(v)), err
		}, nil
	case "<f8":
		return 8, func(r io.Reader) (float64, error) {
			var v float64
			err := binary.Read(r, le, &v)
			return v, err
		}, nil
	case "<i4":
		return 4, func(r io.Reader) (float64, error) {
			var v int32
			err := binary.Read(r, le, &v)
			return float64(v), err
		}, nil
	case "<i8":
		return 8, func(r io.Reader) (float64, error) {
			var v int64
			err := binary.Read(r, le, &v)
			return float64(v), err
		}, nil
	case "|u1", "|b1":
		return 1, func(r io.Reader) (float64, error) {
			var v uint8
			err := binary.Read(r, le, &v)
			return float64(v), err
		}, nil
	case "|i1":
		return 1, func(r io.Reader) (float64, error) {
			var v int8
			err := binary.Read(r, le, &v)
			return float64(v), err
		}, nil
	}
	return 0, nil, fmt.Errorf(".npy element type %q not read (want <f4, <f8, <i4, <i8, |u1, |i1 or |b1): %w", descr, ErrData)
}
