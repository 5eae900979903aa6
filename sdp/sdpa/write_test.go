package sdpa

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/sdp"
)

// randomProblem returns a random valid problem with repeated positions,
// lower-triangle entries, zeros and, when factors is set, rank-one factors.
func randomProblem(rng *rand.Rand, factors bool) *sdp.Problem {
	nb := 1 + rng.IntN(4)
	p := &sdp.Problem{Blocks: make([]sdp.Block, nb)}
	for b := range p.Blocks {
		p.Blocks[b] = sdp.Block{Size: 1 + rng.IntN(6), Diagonal: rng.IntN(3) == 0}
	}
	m := 1 + rng.IntN(5)
	p.C = make([]float64, m)
	for i := range p.C {
		p.C[i] = value(rng)
	}
	p.F = make([]sdp.Matrix, m+1)
	for k := range p.F {
		for range rng.IntN(12) {
			b := rng.IntN(nb)
			i, j := rng.IntN(p.Blocks[b].Size), rng.IntN(p.Blocks[b].Size)
			if p.Blocks[b].Diagonal {
				j = i
			}
			p.F[k] = append(p.F[k], sdp.Entry{Block: b, I: i, J: j, V: value(rng)})
		}
	}
	if factors {
		p.Factors = make([][]sdp.Factor, m+1)
		for k := 1; k <= m; k++ {
			for range rng.IntN(3) {
				b := rng.IntN(nb)
				if p.Blocks[b].Diagonal {
					continue // factors live in PSD blocks only (sdp.Problem.Validate)
				}
				perm := rng.Perm(p.Blocks[b].Size)
				perm = perm[:1+rng.IntN(len(perm))]
				u := sdp.SparseVec{Index: perm}
				for range perm {
					u.Value = append(u.Value, value(rng))
				}
				p.Factors[k] = append(p.Factors[k], sdp.Factor{Block: b, D: value(rng), U: u})
			}
		}
	}
	return p
}

// value returns a random number with a random scale, sometimes zero or an
// integer.
func value(rng *rand.Rand) float64 {
	switch rng.IntN(5) {
	case 0:
		return 0
	case 1:
		return float64(rng.IntN(7) - 3)
	}
	return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
}

func TestWriteRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		p := randomProblem(rng, n%2 == 1)
		var buf bytes.Buffer
		if err := Write(&buf, p); err != nil {
			t.Fatalf("problem %d: %v", n, err)
		}
		q, err := Decode(bytes.NewReader(buf.Bytes()), "round-trip")
		if err != nil {
			t.Fatalf("problem %d: %v\n%s", n, err, buf.String())
		}
		want, err := expand(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(q.Blocks, p.Blocks) || !reflect.DeepEqual(q.C, p.C) || !sameMatrices(q.F, want) {
			t.Fatalf("problem %d: read back %+v\nwant %+v", n, q, p)
		}
		// Writing again gives the same bytes: the output is canonical.
		var again bytes.Buffer
		if err := Write(&again, q); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), buf.Bytes()) {
			t.Fatalf("problem %d: second write differs", n)
		}
	}
}

// sameMatrices compares matrices treating nil and empty as equal.
func sameMatrices(a, b []sdp.Matrix) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if len(a[k]) != len(b[k]) || (len(a[k]) > 0 && !reflect.DeepEqual(a[k], b[k])) {
			return false
		}
	}
	return true
}

func TestWriteFactorExpansion(t *testing.T) {
	// F1 = E11 + 2 u u^T with u = (1, 3) on indices (0, 2) of a 3x3 block:
	// entries (1,1) = 1+2, (1,3) = 6, (3,3) = 18.
	p := &sdp.Problem{
		Blocks:  []sdp.Block{{Size: 3}},
		C:       []float64{1},
		F:       []sdp.Matrix{nil, {{Block: 0, I: 0, J: 0, V: 1}}},
		Factors: [][]sdp.Factor{nil, {{Block: 0, D: 2, U: sdp.SparseVec{Index: []int{2, 0}, Value: []float64{3, 1}}}}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	const want = "1\n1\n3\n1\n1 1 1 1 3\n1 1 1 3 6\n1 1 3 3 18\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestWriteErrors(t *testing.T) {
	good := func() *sdp.Problem {
		return &sdp.Problem{
			Blocks:  []sdp.Block{{Size: 2}, {Size: 2, Diagonal: true}},
			C:       []float64{1},
			F:       []sdp.Matrix{nil, {{Block: 0, I: 0, J: 0, V: 1}}},
			Factors: [][]sdp.Factor{nil, nil},
		}
	}
	u := func(idx []int, val []float64) sdp.SparseVec { return sdp.SparseVec{Index: idx, Value: val} }
	tests := []struct {
		name   string
		change func(p *sdp.Problem)
		is     error
	}{
		{"no blocks", func(p *sdp.Problem) { p.Blocks = nil }, sdp.ErrDimension},
		{"matrix count", func(p *sdp.Problem) { p.F = p.F[:1] }, sdp.ErrDimension},
		{"entry outside", func(p *sdp.Problem) { p.F[1][0].I = 2 }, sdp.ErrDimension},
		{"nan entry", func(p *sdp.Problem) { p.F[1][0].V = math.NaN() }, sdp.ErrNotFinite},
		{"factor count", func(p *sdp.Problem) { p.Factors = p.Factors[:1] }, sdp.ErrDimension},
		{"factor in F0", func(p *sdp.Problem) { p.Factors[0] = []sdp.Factor{{D: 1, U: u([]int{0}, []float64{1})}} }, sdp.ErrDimension},
		{"factor block", func(p *sdp.Problem) { p.Factors[1] = []sdp.Factor{{Block: 2, D: 1}} }, sdp.ErrDimension},
		{"factor lengths", func(p *sdp.Problem) { p.Factors[1] = []sdp.Factor{{D: 1, U: u([]int{0, 1}, []float64{1})}} }, sdp.ErrDimension},
		{"factor index", func(p *sdp.Problem) { p.Factors[1] = []sdp.Factor{{D: 1, U: u([]int{2}, []float64{1})}} }, sdp.ErrDimension},
		{"factor repeat", func(p *sdp.Problem) { p.Factors[1] = []sdp.Factor{{D: 1, U: u([]int{1, 1}, []float64{1, 1})}} }, sdp.ErrDimension},
		{"factor D", func(p *sdp.Problem) { p.Factors[1] = []sdp.Factor{{D: math.Inf(1), U: u([]int{0}, []float64{1})}} }, sdp.ErrNotFinite},
		{"factor value", func(p *sdp.Problem) { p.Factors[1] = []sdp.Factor{{D: 1, U: u([]int{0}, []float64{math.NaN()})}} }, sdp.ErrNotFinite},
		{"factor overflow", func(p *sdp.Problem) { p.Factors[1] = []sdp.Factor{{D: 1e300, U: u([]int{0}, []float64{1e300})}} }, sdp.ErrNotFinite},
		{"factor in diagonal block", func(p *sdp.Problem) {
			p.Factors[1] = []sdp.Factor{{Block: 1, D: 1, U: u([]int{0, 1}, []float64{1, 1})}}
		}, sdp.ErrDimension},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := good()
			tt.change(p)
			var buf bytes.Buffer
			err := Write(&buf, p)
			if !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want %v", err, tt.is)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes for an invalid problem", buf.Len())
			}
		})
	}
}

// TestSDPLIBRoundTrip writes every SDPLIB problem and reads it back.
func TestSDPLIBRoundTrip(t *testing.T) {
	dir := sharedtest.Path(t, "data", "sdplib")
	files, _ := filepath.Glob(filepath.Join(dir, "*.dat-s"))
	for _, f := range files {
		p, err := Read(f)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		q, err := Decode(&buf, filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Errorf("%s: differs after a round trip", filepath.Base(f))
		}
	}
}

func ExampleWrite() {
	p, err := Read(filepath.Join("testdata", "tiny.dat-s"))
	if err != nil {
		panic(err)
	}
	if err := Write(os.Stdout, p); err != nil {
		panic(err)
	}
	// Output:
	// 2
	// 2
	// 2 -2
	// 1.5 -2
	// 0 1 1 1 1
	// 0 1 1 2 0.5
	// 0 2 2 2 -3
	// 1 1 1 1 2
	// 2 1 2 2 2.5
	// 2 2 1 1 0.1
}

func ExampleDecode() {
	_, err := Decode(strings.NewReader("1\n1\n2\n1\n0 1 3 1 1\n"), "bad.dat-s")
	fmt.Println(err)
	// Output:
	// bad.dat-s:5: entry (3,1) outside block 1 of size 2
}
