package onnx

import (
	"errors"
	"slices"
	"testing"
)

func TestReshape(t *testing.T) {
	sym := int64(-1)
	tests := []struct {
		name      string
		in        shape
		target    []int64
		allowZero bool
		want      shape
		err       error
	}{
		{"flatten images", shape{[]int64{sym, 1, 28, 28}, 0}, []int64{-1, 784}, false, shape{[]int64{sym, 784}, 0}, nil},
		{"copy batch", shape{[]int64{sym, 6}, 0}, []int64{0, 2, 3}, false, shape{[]int64{sym, 2, 3}, 0}, nil},
		{"copy batch, infer feature", shape{[]int64{sym, 6}, 0}, []int64{0, -1, 2}, false, shape{[]int64{sym, 3, 2}, 0}, nil},
		{"leading unit", shape{[]int64{sym, 6}, 0}, []int64{1, -1, 6}, false, shape{[]int64{1, sym, 6}, 1}, nil},
		{"fixed batch", shape{[]int64{3, 4}, 0}, []int64{3, 2, 2}, false, shape{[]int64{3, 2, 2}, 0}, nil},
		{"no batch", shape{[]int64{1, 1, 1, 5}, -1}, []int64{5}, false, shape{[]int64{5}, -1}, nil},
		{"no batch infer", shape{[]int64{2, 3}, -1}, []int64{-1, 2}, false, shape{[]int64{3, 2}, -1}, nil},
		{"batch in columns", shape{[]int64{4, sym}, 1}, []int64{2, 2, -1}, false, shape{[]int64{2, 2, sym}, 2}, nil},
		{"merge batch", shape{[]int64{sym, 6}, 0}, []int64{-1, 3}, false, shape{}, ErrShape},
		{"fixed batch merged", shape{[]int64{3, 4}, 0}, []int64{12}, false, shape{}, ErrShape},
		{"batch moved", shape{[]int64{3, 4}, 0}, []int64{4, 3}, false, shape{}, ErrShape},
		{"two -1", shape{[]int64{sym, 6}, 0}, []int64{-1, -1}, false, shape{}, ErrShape},
		{"negative", shape{[]int64{sym, 6}, 0}, []int64{-1, -2}, false, shape{}, ErrShape},
		{"zero copies missing axis", shape{[]int64{sym, 6}, 0}, []int64{-1, 6, 0}, false, shape{}, ErrShape},
		{"allowzero keeps zero", shape{[]int64{sym, 6}, 0}, []int64{0, 6}, true, shape{}, ErrShape},
		{"size changes", shape{[]int64{5}, -1}, []int64{6}, false, shape{}, ErrShape},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := reshape(tc.in, tc.target, tc.allowZero)
			if !errors.Is(err, tc.err) {
				t.Fatalf("got error %v, want %v", err, tc.err)
			}
			if err == nil && (!slices.Equal(got.dims, tc.want.dims) || got.batch != tc.want.batch) {
				t.Fatalf("got %v (batch %d), want %v (batch %d)", got.dims, got.batch, tc.want.dims, tc.want.batch)
			}
		})
	}
}

func TestSqueezeUnsqueeze(t *testing.T) {
	sym := int64(-1)
	in := shape{[]int64{1, sym, 1, 3}, 1}
	got, err := squeeze(in, nil)
	if err != nil || !slices.Equal(got.dims, []int64{sym, 3}) || got.batch != 0 {
		t.Fatalf("squeeze all: %v %v", got, err)
	}
	got, err = squeeze(in, []int64{-2})
	if err != nil || !slices.Equal(got.dims, []int64{1, sym, 3}) || got.batch != 1 {
		t.Fatalf("squeeze -2: %v %v", got, err)
	}
	if _, err := squeeze(in, []int64{1}); !errors.Is(err, ErrShape) {
		t.Fatalf("squeeze of the batch axis: %v", err)
	}
	if _, err := squeeze(in, []int64{3}); !errors.Is(err, ErrShape) {
		t.Fatalf("squeeze of a size-3 axis: %v", err)
	}
	got, err = unsqueeze(shape{[]int64{sym, 3}, 0}, []int64{0, -1})
	if err != nil || !slices.Equal(got.dims, []int64{1, sym, 3, 1}) || got.batch != 1 {
		t.Fatalf("unsqueeze: %v %v", got, err)
	}
	if _, err := unsqueeze(shape{[]int64{sym, 3}, 0}, []int64{1, 1}); !errors.Is(err, ErrShape) {
		t.Fatalf("unsqueeze with a repeated axis: %v", err)
	}
}

func TestBroadcastConst(t *testing.T) {
	sym := int64(-1)
	tests := []struct {
		name   string
		x      shape
		c      []int64
		want   []int64
		xi, ci []int
		err    error
	}{
		{"scalar", shape{[]int64{sym, 2}, 0}, nil, []int64{sym, 2}, []int{0, 1}, []int{0, 0}, nil},
		{"vector", shape{[]int64{sym, 2}, 0}, []int64{2}, []int64{sym, 2}, []int{0, 1}, []int{0, 1}, nil},
		{"expand", shape{[]int64{sym, 1}, 0}, []int64{1, 3}, []int64{sym, 3}, []int{0, 0, 0}, []int{0, 1, 2}, nil},
		{"new axis", shape{[]int64{sym, 2}, 0}, []int64{2, 1, 1}, []int64{2, sym, 2}, []int{0, 1, 0, 1}, []int{0, 0, 1, 1}, nil},
		{"varies on batch", shape{[]int64{sym, 2}, 0}, []int64{3, 2}, nil, nil, nil, ErrShape},
		{"mismatch", shape{[]int64{sym, 2}, 0}, []int64{3}, nil, nil, nil, ErrShape},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, xi, ci, err := broadcastConst(tc.x, tc.c, 1000)
			if !errors.Is(err, tc.err) {
				t.Fatalf("got error %v, want %v", err, tc.err)
			}
			if err == nil && (!slices.Equal(out.dims, tc.want) || !slices.Equal(xi, tc.xi) || !slices.Equal(ci, tc.ci)) {
				t.Fatalf("got %v %v %v, want %v %v %v", out.dims, xi, ci, tc.want, tc.xi, tc.ci)
			}
		})
	}
}
