package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
)

// constant is a tensor whose value is known when the file is read: an
// initializer, the output of a Constant node, or an attribute tensor.
// Floating-point tensors fill vals, integer tensors fill ints.
type constant struct {
	dims []int64
	typ  DataType
	vals []float64
	ints []int64
	// deq, for the value of a folded DequantizeLinear, is its quantiser
	// and axis (ops_qdq.go).
	deq *dequant
}

// isFloat reports whether t is an element type that can hold weights.
func isFloat(t DataType) bool { return t == Float || t == Double || t == Float16 }

// numElems returns the element count of a tensor of shape dims holding
// stored values. It never computes a product larger than stored, so huge
// declared dimensions cannot overflow or allocate.
func numElems(dims []int64, stored int) (int, error) {
	n := 1
	for _, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d: %w", d, ErrMalformed)
		}
		if d == 0 {
			return 0, nil
		}
	}
	for _, d := range dims {
		if d > int64(stored) || n > stored/int(d) {
			return 0, fmt.Errorf("shape %v needs more than the %d values stored: %w", dims, stored, ErrMalformed)
		}
		n *= int(d)
	}
	return n, nil
}

// elemSize returns the byte width of an element in raw_data, or 0.
func elemSize(t DataType) int {
	switch t {
	case Int8, Uint8:
		return 1
	case Float16:
		return 2
	case Float, Int32:
		return 4
	case Double, Int64:
		return 8
	}
	return 0
}

// toConstant converts the data of t to a constant. Only FLOAT, DOUBLE,
// FLOAT16, INT8, UINT8, INT32 and INT64 tensors are supported; an 8-bit
// value stored in int32_data outside its type's range is an error.
func (t *tensor) toConstant() (*constant, error) {
	if t.external {
		return nil, fmt.Errorf("tensor %q: external data is not supported: %w", t.name, ErrDataType)
	}
	size := elemSize(t.dataType)
	if size == 0 {
		return nil, fmt.Errorf("tensor %q: element type %v: %w", t.name, t.dataType, ErrDataType)
	}
	stored := t.storedCount(size)
	if stored < 0 {
		return nil, fmt.Errorf("tensor %q: raw_data has %d bytes, not a multiple of %d: %w",
			t.name, len(t.raw), size, ErrMalformed)
	}
	n, err := numElems(t.dims, stored)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.name, err)
	}
	if n != stored {
		return nil, fmt.Errorf("tensor %q: shape %v has %d elements but %d are stored: %w",
			t.name, t.dims, n, stored, ErrMalformed)
	}
	c := &constant{dims: t.dims, typ: t.dataType}
	if isFloat(t.dataType) {
		c.vals = t.floatValues(n)
	} else {
		c.ints = t.intValues(n)
		if err := checkRange(t.dataType, c.ints); err != nil {
			return nil, fmt.Errorf("tensor %q: %w", t.name, err)
		}
	}
	return c, nil
}

// storedCount returns the number of elements the tensor's data holds.
func (t *tensor) storedCount(size int) int {
	if t.hasRaw {
		if len(t.raw)%size != 0 {
			return -1 // never equals a valid element count
		}
		return len(t.raw) / size
	}
	switch t.dataType {
	case Float:
		return len(t.floats)
	case Double:
		return len(t.doubles)
	case Float16, Int32, Int8, Uint8:
		return len(t.int32s)
	case Int64:
		return len(t.int64s)
	}
	return 0
}

// floatValues returns the n values of a floating-point tensor as float64.
func (t *tensor) floatValues(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch {
		case t.hasRaw && t.dataType == Float:
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(t.raw[4*i:])))
		case t.hasRaw && t.dataType == Double:
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.raw[8*i:]))
		case t.hasRaw: // Float16
			v[i] = halfToFloat64(binary.LittleEndian.Uint16(t.raw[2*i:]))
		case t.dataType == Float:
			v[i] = float64(t.floats[i])
		case t.dataType == Double:
			v[i] = t.doubles[i]
		default: // Float16 bit patterns in int32_data
			v[i] = halfToFloat64(uint16(t.int32s[i]))
		}
	}
	return v
}

// intValues returns the n values of an integer tensor.
func (t *tensor) intValues(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		switch {
		case t.hasRaw && t.dataType == Int8:
			v[i] = int64(int8(t.raw[i]))
		case t.hasRaw && t.dataType == Uint8:
			v[i] = int64(t.raw[i])
		case t.hasRaw && t.dataType == Int32:
			v[i] = int64(int32(binary.LittleEndian.Uint32(t.raw[4*i:])))
		case t.hasRaw:
			v[i] = int64(binary.LittleEndian.Uint64(t.raw[8*i:]))
		case t.dataType == Int32:
			v[i] = int64(int32(t.int32s[i]))
		case t.dataType == Int8 || t.dataType == Uint8:
			v[i] = t.int32s[i] // range-checked by the caller
		default:
			v[i] = t.int64s[i]
		}
	}
	return v
}

// halfToFloat64 converts IEEE 754 binary16 bits to float64 (exactly).
func halfToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// size returns the number of elements of c.
func (c *constant) size() int {
	if c.vals != nil {
		return len(c.vals)
	}
	return len(c.ints)
}

// floats returns c's values as float64, or an error if c is an integer
// tensor.
func (c *constant) floats() ([]float64, error) {
	if !isFloat(c.typ) {
		return nil, fmt.Errorf("constant of type %v where floating-point values are needed: %w", c.typ, ErrDataType)
	}
	return c.vals, nil
}

// integers returns c's values as int64, or an error if c is not an
// integer tensor.
func (c *constant) integers() ([]int64, error) {
	if isFloat(c.typ) {
		return nil, fmt.Errorf("constant of type %v where integers are needed: %w", c.typ, ErrDataType)
	}
	return c.ints, nil
}

// scalar returns the single value of a floating-point constant with one
// element (of any rank).
func (c *constant) scalar() (float64, error) {
	v, err := c.floats()
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("constant of shape %v where a scalar is needed: %w", c.dims, ErrShape)
	}
	return v[0], nil
}

// intRange returns the range of the 8-bit integer types (ok false for
// others).
func intRange(t DataType) (lo, hi int64, ok bool) {
	switch t {
	case Uint8:
		return 0, 255, true
	case Int8:
		return -128, 127, true
	}
	return 0, 0, false
}

// checkRange reports 8-bit values outside their type's range (possible only
// in int32_data).
func checkRange(t DataType, v []int64) error {
	lo, hi, ok := intRange(t)
	if !ok {
		return nil
	}
	for i, x := range v {
		if x < lo || x > hi {
			return fmt.Errorf("value %d is %d, outside the %v range [%d, %d]: %w", i, x, t, lo, hi, ErrMalformed)
		}
	}
	return nil
}
