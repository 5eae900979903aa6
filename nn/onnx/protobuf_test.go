package onnx

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// TestVarint checks the varint encoding against values written out by
// hand, its round trip, and the errors of truncated and overlong input.
func TestVarint(t *testing.T) {
	cases := []struct {
		v    uint64
		wire []byte
	}{
		{0, []byte{0}},
		{1, []byte{1}},
		{127, []byte{0x7f}},
		{128, []byte{0x80, 1}},
		{300, []byte{0xac, 0x02}},
		{1 << 63, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}},
		{math.MaxUint64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1}},
	}
	for _, tc := range cases {
		if got := appendVarint(nil, tc.v); !bytes.Equal(got, tc.wire) {
			t.Errorf("appendVarint(%d) = %x, want %x", tc.v, got, tc.wire)
		}
		v, n, err := consumeVarint(append(tc.wire, 0xaa))
		if err != nil || v != tc.v || n != len(tc.wire) {
			t.Errorf("consumeVarint(%x) = %d, %d, %v; want %d, %d", tc.wire, v, n, err, tc.v, len(tc.wire))
		}
	}
	bad := []struct {
		name string
		wire []byte
		want error
	}{
		{"empty", nil, errTruncated},
		{"truncated", []byte{0x80, 0x80}, errTruncated},
		{"65 bits", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2}, errOverflow},
		{"11 bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0}, errOverflow},
	}
	for _, tc := range bad {
		if _, _, err := consumeVarint(tc.wire); !errors.Is(err, tc.want) {
			t.Errorf("%s: consumeVarint(%x) error %v, want %v", tc.name, tc.wire, err, tc.want)
		}
	}
}

// TestWalkWire checks walk on messages written out by hand: every wire
// type, groups skipped (nested ones too), and each kind of bad input
// reported as ErrMalformed.
func TestWalkWire(t *testing.T) {
	msg := []byte{
		0x08, 0x96, 0x01, // field 1 varint 150
		0x11, 1, 0, 0, 0, 0, 0, 0, 0, // field 2 fixed64 1
		0x1a, 2, 'h', 'i', // field 3 bytes "hi"
		0x23, 0x2b, 0x08, 0x07, 0x2c, 0x24, // field 4 group holding group 5 holding field 1 = 7
		0x2d, 1, 0, 0, 0, // field 5 fixed32 1
	}
	var got []field
	if err := walk(msg, func(f field) error { got = append(got, f); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []field{{num: 1, typ: varintType, x: 150}, {num: 2, typ: fixed64Type, x: 1},
		{num: 3, typ: bytesType, b: []byte("hi")}, {num: 5, typ: fixed32Type, x: 1}}
	if len(got) != len(want) {
		t.Fatalf("walk gave %d fields %v, want %v", len(got), got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.num != w.num || g.typ != w.typ || g.x != w.x || !bytes.Equal(g.b, w.b) {
			t.Errorf("field %d: %+v, want %+v", i, g, w)
		}
	}

	deep := bytes.Repeat([]byte{0x0b}, maxGroupDepth+1) // groups 1 nested past the limit
	bad := []struct {
		name string
		msg  []byte
	}{
		{"field number 0", []byte{0x00, 0x01}},
		{"truncated fixed64", []byte{0x11, 1, 2}},
		{"truncated fixed32", []byte{0x2d, 1}},
		{"length past the end", []byte{0x1a, 3, 'h', 'i'}},
		{"wire type 6", []byte{0x0e, 0}},
		{"wire type 7", []byte{0x0f, 0}},
		{"lone end group", []byte{0x0c}},
		{"mismatched end group", []byte{0x0b, 0x14}},
		{"unterminated group", []byte{0x0b, 0x08, 1}},
		{"groups too deep", deep},
	}
	for _, tc := range bad {
		if err := walk(tc.msg, func(field) error { return nil }); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: walk error %v, want ErrMalformed", tc.name, err)
		}
	}
}

// TestAppendField checks the field writers against bytes written out by
// hand.
func TestAppendField(t *testing.T) {
	got := appendInt(nil, 1, 150)
	got = appendString(got, 3, "hi")
	got = appendMessage(got, 2, []byte{0x08, 0x01})
	want := []byte{0x08, 0x96, 0x01, 0x1a, 2, 'h', 'i', 0x12, 2, 0x08, 0x01}
	if !bytes.Equal(got, want) {
		t.Errorf("got %x, want %x", got, want)
	}
}
