package agree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// npyBytes returns a .npy file (version 1) of the given header fields and
// data.
func npyBytes(descr, shape string, data []byte) []byte {
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	return append(append(b, h...), data...)
}

// writeFile writes data to name in dir and returns its path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadFormats(t *testing.T) {
	dir := t.TempDir()
	var f4 []byte
	for _, v := range []float32{0.5, 1, 0, 0.25, 2, 3} {
		f4 = binary.LittleEndian.AppendUint32(f4, math.Float32bits(v))
	}
	var i8 []byte
	for _, v := range []int64{3, 1, 0} {
		i8 = binary.LittleEndian.AppendUint64(i8, uint64(v))
	}
	want := [][]float64{{0.5, 1}, {0, 0.25}, {2, 3}}
	for _, c := range []struct {
		name, data, labels string
		file               []byte
		labelFile          []byte
		wantLabels         []int
	}{
		{name: "json", data: "s.json", file: []byte(`{"inputs": [[0.5, 1], [[0], [0.25]], [2, 3]], "labels": [3, 1, 0]}`), wantLabels: []int{3, 1, 0}},
		{name: "json unlabelled", data: "u.json", file: []byte(`{"inputs": [[0.5, 1], [0, 0.25], [2, 3]]}`), wantLabels: []int{-1, -1, -1}},
		{name: "csv with header", data: "s.csv", file: []byte("a,label,b\n0.5,3,1\n0,1,0.25\n2,0,3\n"), wantLabels: []int{3, 1, 0}},
		{name: "csv unlabelled", data: "u.csv", file: []byte("0.5,1\n0,0.25\n2,3\n"), wantLabels: []int{-1, -1, -1}},
		{name: "npy, npy labels", data: "x.npy", file: npyBytes("<f4", "3, 2", f4), labels: "y.npy", labelFile: npyBytes("<i8", "3,", i8), wantLabels: []int{3, 1, 0}},
		{name: "npy images, text labels", data: "img.npy", file: npyBytes("<f4", "3, 1, 2", f4), labels: "y.txt", labelFile: []byte("3\n1\n0\n"), wantLabels: []int{3, 1, 0}},
	} {
		p := writeFile(t, dir, c.data, c.file)
		lp := ""
		if c.labels != "" {
			lp = writeFile(t, dir, c.labels, c.labelFile)
		}
		ss, err := Read(p, lp)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for i, s := range ss {
			if s.Index != i || !slices.Equal(s.X, want[i]) || s.Label != c.wantLabels[i] {
				t.Errorf("%s: sample %d = %+v, want %v label %d", c.name, i, s, want[i], c.wantLabels[i])
			}
		}
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, file, data string }{
		{"unknown format", "s.txt", "1 2"},
		{"ragged", "r.json", `{"inputs": [[1, 2], [3]]}`},
		{"labels short", "l.json", `{"inputs": [[1, 2], [3, 4]], "labels": [1]}`},
		{"negative label", "n.json", `{"inputs": [[1, 2]], "labels": [-2]}`},
		{"empty", "e.json", `{"inputs": []}`},
		{"not a number", "b.csv", "1,2\n3,x\n"},
		{"not npy", "b.npy", "hello, world"},
		{"string in json", "s.json", `{"inputs": [["a"]]}`},
	} {
		p := writeFile(t, dir, c.file, []byte(c.data))
		if _, err := Read(p, ""); !errors.Is(err, ErrData) {
			t.Errorf("%s: %v, want ErrData", c.name, err)
		}
	}
	for _, c := range []struct{ name, data, want string }{
		{"empty file", " \n", "n.json is empty"},
		{"NaN", "{\"inputs\": [[0.5,\n NaN]]}", "n.json:2:2: NaN and Infinity are not numbers in JSON (the values must be finite)"},
		{"-Infinity", "{\"inputs\": [[-Infinity]]}", "n.json:1:15: NaN and Infinity are not numbers in JSON"},
		{"cut", "{\"inputs\": [[1,", "n.json:1:"},
	} {
		p := writeFile(t, dir, "n.json", []byte(c.data))
		if _, err := Read(p, ""); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing.json"), ""); err == nil {
		t.Error("missing file: no error")
	}
}
