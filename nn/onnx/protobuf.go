package onnx

import (
	"encoding/binary"
	"errors"
)

// The protobuf wire format, as much of it as ONNX files use
// (https://protobuf.dev/programming-guides/encoding/). A message is a
// sequence of fields, each a tag then a value:
//
//	tag    = varint(number<<3 | wire type)
//	varint = 7 bits per byte, least significant first, high bit set on
//	         every byte but the last (at most 10 bytes)
//
// and the value is a varint (wire type 0), 8 or 4 little-endian bytes
// (1 and 5), a varint length and that many bytes (2), or a group: fields
// up to an end-group tag of the same number (3 and 4, obsolete; skipped).
// The package reads and writes it itself rather than through
// google.golang.org/protobuf, whose internal/detrand reads the running
// executable when the program starts, in every command of nnbound.

// number is a protobuf field number.
type number int32

// wireType is the encoding of a field's value.
type wireType int8

// The wire types.
const (
	varintType     wireType = 0
	fixed64Type    wireType = 1
	bytesType      wireType = 2
	startGroupType wireType = 3
	endGroupType   wireType = 4
	fixed32Type    wireType = 5
)

// maxFieldNumber is the largest valid field number; maxGroupDepth is how
// deep skipValue follows nested groups.
const (
	maxFieldNumber = 1<<29 - 1
	maxGroupDepth  = 10000
)

// Errors of the wire format (wrapped with ErrMalformed by walk; see
// wireFault).
var (
	errTruncated  = errors.New("unexpected end of input")
	errOverflow   = errors.New("variable length integer overflow")
	errFieldNum   = errors.New("invalid field number")
	errWireType   = errors.New("invalid wire type")
	errEndGroup   = errors.New("mismatching end group marker")
	errGroupDepth = errors.New("groups nested too deep")
)

// consumeVarint returns the varint at the start of b and its length.
func consumeVarint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0, errOverflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errTruncated
}

// consumeTag returns the field number and wire type of the tag at the
// start of b, and its length.
func consumeTag(b []byte) (number, wireType, int, error) {
	v, n, err := consumeVarint(b)
	if err != nil {
		return 0, 0, 0, err
	}
	if num := v >> 3; num >= 1 && num <= maxFieldNumber {
		return number(num), wireType(v & 7), n, nil
	}
	return 0, 0, 0, errFieldNum
}

// consumeFixed32 returns the 4-byte little-endian value at the start of b.
func consumeFixed32(b []byte) (uint32, int, error) {
	if len(b) < 4 {
		return 0, 0, errTruncated
	}
	return binary.LittleEndian.Uint32(b), 4, nil
}

// consumeFixed64 returns the 8-byte little-endian value at the start of b.
func consumeFixed64(b []byte) (uint64, int, error) {
	if len(b) < 8 {
		return 0, 0, errTruncated
	}
	return binary.LittleEndian.Uint64(b), 8, nil
}

// consumeBytes returns the payload of the length-delimited value at the
// start of b, and the value's length with its length prefix.
func consumeBytes(b []byte) ([]byte, int, error) {
	l, n, err := consumeVarint(b)
	if err != nil {
		return nil, 0, err
	}
	if l > uint64(len(b)-n) {
		return nil, 0, errTruncated
	}
	return b[n : n+int(l)], n + int(l), nil
}

// skipValue returns the length of the value of wire type typ at the start
// of b (for a group, up to and with its end-group tag for field num),
// following at most depth nested groups.
func skipValue(num number, typ wireType, b []byte, depth int) (int, error) {
	var n int
	var err error
	switch typ {
	case varintType:
		_, n, err = consumeVarint(b)
	case fixed32Type:
		_, n, err = consumeFixed32(b)
	case fixed64Type:
		_, n, err = consumeFixed64(b)
	case bytesType:
		_, n, err = consumeBytes(b)
	case startGroupType:
		return skipGroup(num, b, depth)
	case endGroupType:
		err = errEndGroup
	default:
		err = errWireType
	}
	return n, err
}

// skipGroup returns the length of the fields of the group num at the start
// of b, with its end-group tag.
func skipGroup(num number, b []byte, depth int) (int, error) {
	if depth <= 0 {
		return 0, errGroupDepth
	}
	for total := 0; ; {
		fnum, typ, n, err := consumeTag(b[total:])
		if err != nil {
			return 0, err
		}
		total += n
		if typ == endGroupType {
			if fnum != num {
				return 0, errEndGroup
			}
			return total, nil
		}
		n, err = skipValue(fnum, typ, b[total:], depth-1)
		if err != nil {
			return 0, err
		}
		total += n
	}
}

// appendVarint appends v as a varint.
func appendVarint(b []byte, v uint64) []byte {
	for ; v >= 0x80; v >>= 7 {
		b = append(b, byte(v)|0x80)
	}
	return append(b, byte(v))
}

// appendTag appends the tag of field num with wire type typ.
func appendTag(b []byte, num number, typ wireType) []byte {
	return appendVarint(b, uint64(num)<<3|uint64(typ))
}

// appendLengthDelimited appends the length of v and v.
func appendLengthDelimited[T string | []byte](b []byte, v T) []byte {
	return append(appendVarint(b, uint64(len(v))), v...)
}

// wireFault says what a decoding error of the wire format means for the
// file: bytes that end inside a field are a truncated file (or a corrupt
// one), other wire errors bytes that are no protobuf message at all. It
// returns "" for errors that are not of the wire format.
func wireFault(err error) string {
	switch {
	case errors.Is(err, errTruncated):
		return "truncated or corrupt file"
	case errors.Is(err, errOverflow), errors.Is(err, errFieldNum), errors.Is(err, errWireType),
		errors.Is(err, errEndGroup), errors.Is(err, errGroupDepth):
		return "not an ONNX file, or a corrupt one"
	}
	return ""
}
