package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// field is one decoded protobuf field: its number and wire type, the varint
// or fixed value in x, and the payload of a length-delimited field in b.
type field struct {
	num number
	typ wireType
	x   uint64
	b   []byte
}

// walk calls fn for every field of the message m, in order. Groups are
// skipped. It returns an error wrapping ErrMalformed for truncated or
// ill-formed input.
func walk(m []byte, fn func(f field) error) error {
	for len(m) > 0 {
		num, typ, n, err := consumeTag(m)
		if err != nil {
			return fmt.Errorf("bad field tag: %w: %w", err, ErrMalformed)
		}
		m = m[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case varintType:
			f.x, n, err = consumeVarint(m)
		case fixed32Type:
			var v uint32
			v, n, err = consumeFixed32(m)
			f.x = uint64(v)
		case fixed64Type:
			f.x, n, err = consumeFixed64(m)
		case bytesType:
			f.b, n, err = consumeBytes(m)
		default:
			n, err = skipValue(num, typ, m, maxGroupDepth)
		}
		if err != nil {
			return fmt.Errorf("field %d: %w: %w", num, err, ErrMalformed)
		}
		m = m[n:]
		if typ == startGroupType {
			continue
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// wantType reports an error unless f has wire type t.
func (f field) wantType(t wireType) error {
	if f.typ != t {
		return fmt.Errorf("field %d has wire type %d, want %d: %w", f.num, f.typ, t, ErrMalformed)
	}
	return nil
}

// str returns the payload of a string field.
func (f field) str() (string, error) {
	if err := f.wantType(bytesType); err != nil {
		return "", err
	}
	return string(f.b), nil
}

// msg returns the payload of an embedded-message or bytes field.
func (f field) msg() ([]byte, error) {
	if err := f.wantType(bytesType); err != nil {
		return nil, err
	}
	return f.b, nil
}

// int returns a varint field as a signed 64-bit integer (int32 and int64
// fields, and enums).
func (f field) int() (int64, error) {
	if err := f.wantType(varintType); err != nil {
		return 0, err
	}
	return int64(f.x), nil
}

// float32 returns a fixed32 field as a float.
func (f field) float32() (float32, error) {
	if err := f.wantType(fixed32Type); err != nil {
		return 0, err
	}
	return math.Float32frombits(uint32(f.x)), nil
}

// appendVarints appends the values of a repeated varint field, packed or not.
func appendVarints(dst []int64, f field) ([]int64, error) {
	switch f.typ {
	case varintType:
		return append(dst, int64(f.x)), nil
	case bytesType:
		b := f.b
		for len(b) > 0 {
			v, n, err := consumeVarint(b)
			if err != nil {
				return nil, fmt.Errorf("packed field %d: %w: %w", f.num, err, ErrMalformed)
			}
			dst = append(dst, int64(v))
			b = b[n:]
		}
		return dst, nil
	}
	return nil, fmt.Errorf("repeated integer field %d has wire type %d: %w", f.num, f.typ, ErrMalformed)
}

// appendFixed32 appends the values of a repeated float field, packed or not.
func appendFixed32(dst []float32, f field) ([]float32, error) {
	return appendFixed(dst, f, fixed32Type, 4, func(b []byte) float32 {
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	})
}

// appendFixed64 appends the values of a repeated double field, packed or not.
func appendFixed64(dst []float64, f field) ([]float64, error) {
	return appendFixed(dst, f, fixed64Type, 8, func(b []byte) float64 {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	})
}

// appendFixed appends the values of a repeated fixed-width field of wire
// type typ and byte width, packed or not; conv decodes one value.
func appendFixed[T any](dst []T, f field, typ wireType, width int, conv func([]byte) T) ([]T, error) {
	switch f.typ {
	case typ:
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], f.x)
		return append(dst, conv(b[:])), nil
	case bytesType:
		if len(f.b)%width != 0 {
			return nil, fmt.Errorf("packed field %d has %d bytes, not a multiple of %d: %w", f.num, len(f.b), width, ErrMalformed)
		}
		dst = slices.Grow(dst, len(f.b)/width)
		for i := 0; i < len(f.b); i += width {
			dst = append(dst, conv(f.b[i:]))
		}
		return dst, nil
	}
	return nil, fmt.Errorf("repeated field %d has wire type %d: %w", f.num, f.typ, ErrMalformed)
}
