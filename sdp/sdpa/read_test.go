package sdpa

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/gzfile/gztest"
	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/sdp"
)

func TestReadTiny(t *testing.T) {
	p, err := Read(filepath.Join("testdata", "tiny.dat-s"))
	if err != nil {
		t.Fatal(err)
	}
	want := &sdp.Problem{
		Blocks: []sdp.Block{{Size: 2}, {Size: 2, Diagonal: true}},
		C:      []float64{1.5, -2},
		F: []sdp.Matrix{
			{{Block: 0, I: 0, J: 0, V: 1}, {Block: 0, I: 0, J: 1, V: 0.5}, {Block: 1, I: 1, J: 1, V: -3}},
			{{Block: 0, I: 0, J: 0, V: 2}},
			{{Block: 0, I: 1, J: 1, V: 2.5}, {Block: 1, I: 0, J: 0, V: 0.1}},
		},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("got %+v\nwant %+v", p, want)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
}

// TestDecodeErrors checks that each kind of malformed input gives a
// *ParseError at the right line with a message naming the problem.
func TestDecodeErrors(t *testing.T) {
	const head = "1\n1\n2\n1\n"
	tests := []struct {
		name, in string
		line     int
		msg      string
		is       error
	}{
		{"empty", "", 1, "empty file", nil},
		{"only comments", "* c\n\" d\n", 2, "unexpected end of file, want the number of constraint", nil},
		{"m not a number", "x\n", 1, `want the number of constraint matrices m, found "x"`, nil},
		{"m zero", "0\n1\n1\n\n", 1, "m = 0", sdp.ErrDimension},
		{"m negative", "-3\n", 1, "m = -3", sdp.ErrDimension},
		{"m overflows", "99999999999999999999\n", 1, "want the number of constraint", nil},
		{"no blocks line", "1\n", 1, "unexpected end of file, want the number of blocks", nil},
		{"zero blocks", "1\n0\n", 2, "number of blocks = 0", sdp.ErrDimension},
		{"too few sizes", "1\n3\n2 2\n", 3, "want 3 block sizes, found 2", nil},
		{"huge block count", "1\n1000000000000\n", 2, "want the number of blocks", nil},
		{"huge declared blocks", "1\n2000000000\n1 2\n", 3, "want 2000000000 block sizes, found 2", nil},
		{"size zero", "1\n2\n2 0\n", 3, "block 2 has size 0", sdp.ErrDimension},
		{"no objective", "1\n1\n2\n", 3, "unexpected end of file, want the objective", nil},
		{"short objective", "3\n1\n2\n1 2\n", 4, "objective has 2 values, want m = 3", sdp.ErrDimension},
		{"huge m", "1000000000\n1\n2\n1 2\n", 4, "objective has 2 values, want m = 1000000000", sdp.ErrDimension},
		{"bad objective", "2\n1\n2\n1 x\n", 4, `objective value 2: "x" is not a number`, nil},
		{"inf objective", "1\n1\n2\ninf\n", 4, "objective value 1 is +Inf", sdp.ErrNotFinite},
		{"short entry", head + "0 1 1 1\n", 5, "entry has 4 fields, want 5", nil},
		{"long entry", head + "0 1 1 1 1 1\n", 5, "entry has 6 fields, want 5", nil},
		{"float index", head + "0 1 1.0 1 1\n", 5, `row index "1.0" is not an integer`, nil},
		{"matrix range", head + "\n\n2 1 1 1 1\n", 7, "matrix number 2 out of range 0..1", sdp.ErrDimension},
		{"matrix negative", head + "-1 1 1 1 1\n", 5, "matrix number -1 out of range", sdp.ErrDimension},
		{"block range", head + "0 2 1 1 1\n", 5, "block number 2 out of range 1..1", sdp.ErrDimension},
		{"row range", head + "0 1 3 1 1\n", 5, "entry (3,1) outside block 1 of size 2", sdp.ErrDimension},
		{"column zero", head + "0 1 1 0 1\n", 5, "entry (1,0) outside block 1", sdp.ErrDimension},
		{"offdiag in diag", "1\n1\n-2\n1\n0 1 1 2 1\n", 5, "off-diagonal entry (1,2) in diagonal block 1", sdp.ErrDimension},
		{"bad value", head + "0 1 1 1 abc\n", 5, `value "abc" is not a number`, nil},
		{"nan value", head + "0 1 1 1 NaN\n", 5, "value NaN is not finite", sdp.ErrNotFinite},
		{"overflowing value", head + "0 1 1 1 1e999\n", 5, `value "1e999" is not a number`, nil},
		{"overflowing sum", head + "1 1 1 1 1\n0 1 1 2 1e308\n0 1 2 1 1e308\n0 1 1 2 -1\n", 7,
			"repeated entries at F0 block 1 (1,2) sum to +Inf", sdp.ErrNotFinite},
		{"comment after header", head + "* late\n", 5, "comment line after the header", nil},
		{"binary", "\x00\x01\x02\xff", 1, "want the number of constraint", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.in), "in.dat-s")
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if pe.Line != tt.line || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q, want line %d and %q", err, tt.line, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "in.dat-s:"+strconv.Itoa(tt.line)+": ") {
				t.Errorf("err = %q, want the prefix file:line:", err)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("err does not wrap ErrSyntax")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err does not wrap %v", tt.is)
			}
		})
	}
}

func TestReadPathErrors(t *testing.T) {
	if _, err := Read(filepath.Join("testdata", "missing.dat-s")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	if _, err := Read("testdata"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: err = %v", err)
	}
}

// TestSDPLIB reads every SDPLIB problem of the shared folder and checks m,
// the block structure and the validity of the result against optimal.tsv.
func TestSDPLIB(t *testing.T) {
	dir := sharedtest.Path(t, "data", "sdplib")
	want := readOptimal(t, filepath.Join(dir, "optimal.tsv"))
	files, err := filepath.Glob(filepath.Join(dir, "*.dat-s"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 74 {
		t.Errorf("found %d SDPLIB files, want 74", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".dat-s")
		t.Run(name, func(t *testing.T) {
			p, err := Read(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			w, ok := want[name]
			if !ok {
				t.Fatalf("%s missing from optimal.tsv", name)
			}
			if got := blockString(p.Blocks); p.NumVars() != w.m || got != w.blocks {
				t.Errorf("m = %d, blocks %s; want %d, %s", p.NumVars(), got, w.m, w.blocks)
			}
			for k := 1; k < len(p.F); k++ {
				if len(p.F[k]) == 0 {
					t.Errorf("F%d is empty", k)
				}
			}
		})
	}
}

type optimalRow struct {
	m      int
	blocks string
}

// readOptimal reads the name, m and blocks columns of optimal.tsv.
func readOptimal(t *testing.T, path string) map[string]optimalRow {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows := map[string]optimalRow{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 4 || strings.HasPrefix(f[0], "#") || f[0] == "name" {
			continue
		}
		m, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("optimal.tsv: %s: bad m %q", f[0], f[1])
		}
		rows[f[0]] = optimalRow{m, f[3]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// blockString formats a block structure as optimal.tsv does: comma list,
// NxK for K consecutive blocks of size N, negative for diagonal blocks.
func blockString(bs []sdp.Block) string {
	var parts []string
	for n := 0; n < len(bs); {
		k := n + 1
		for k < len(bs) && bs[k] == bs[n] {
			k++
		}
		s := bs[n].Size
		if bs[n].Diagonal {
			s = -s
		}
		if k-n > 1 {
			parts = append(parts, strconv.Itoa(s)+"x"+strconv.Itoa(k-n))
		} else {
			parts = append(parts, strconv.Itoa(s))
		}
		n = k
	}
	return strings.Join(parts, ",")
}

func TestDecodeCancellingEntries(t *testing.T) {
	p, err := Decode(strings.NewReader("1\n1\n2\n1\n1 1 1 2 1\n1 1 2 1 -1\n"), "cancel")
	if err != nil {
		t.Fatal(err)
	}
	if p.F[1] != nil {
		t.Errorf("F1 = %v, want nil", p.F[1])
	}
}

// TestReadGzip reads a gzipped file by its name and by its content.
func TestReadGzip(t *testing.T) {
	want, err := Read(filepath.Join("testdata", "tiny.dat-s"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "tiny.dat-s"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"tiny.dat-s.gz", "tiny.dat-s"} {
		path := gztest.WriteFile(t, filepath.Join(dir, name), data)
		p, err := Read(path)
		if err != nil || !reflect.DeepEqual(p, want) {
			t.Errorf("%s: %v, %+v", name, err, p)
		}
	}
	z := gztest.Bytes(t, data)
	os.WriteFile(filepath.Join(dir, "cut.dat-s.gz"), z[:len(z)/2], 0o644)
	if _, err := Read(filepath.Join(dir, "cut.dat-s.gz")); err == nil || !strings.Contains(err.Error(), "cut.dat-s.gz") {
		t.Errorf("truncated: err = %v", err)
	}
}
