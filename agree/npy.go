package agree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
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

// npyField returns the text of the value of key in the header h (a
// Python dict literal) up to the first of the bytes in end, without its
// opening delimiter open (0: none), and whether it was found.
func npyField(h, key string, open byte, end string) (string, bool) {
	_, rest, ok := strings.Cut(h, "'"+key+"'")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, ":") {
		return "", false
	}
	rest = strings.TrimSpace(rest[1:])
	if open != 0 {
		if rest == "" || rest[0] != open {
			return "", false
		}
		rest = rest[1:]
	}
	i := strings.IndexAny(rest, end)
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}

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
	descr, ok1 := npyField(h, "descr", '\'', "'")
	fortran, ok2 := npyField(h, "fortran_order", 0, ",}")
	shapeText, ok3 := npyField(h, "shape", '(', ")")
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf(".npy header %q lacks descr, fortran_order or shape: %w", strings.TrimSpace(h), ErrData)
	}
	if strings.TrimSpace(fortran) == "True" {
		return nil, fmt.Errorf(".npy array in Fortran order (save it in C order): %w", ErrData)
	}
	var shape []int
	for _, t := range strings.Split(shapeText, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			return nil, fmt.Errorf(".npy shape (%s): %w", shapeText, ErrData)
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
	size, read, err := npyElement(descr)
	if err != nil {
		return nil, err
	}
	data := b[start+hlen:]
	if len(data) < shape[0]*width*size {
		return nil, fmt.Errorf(".npy data has %d bytes, shape (%s) of %s needs %d: %w", len(data), shapeText, descr, shape[0]*width*size, ErrData)
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
