package align

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteForce returns the least total cost over all permutations.
func bruteForce(cost [][]float64) float64 {
	n := len(cost)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	best := math.Inf(1)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			s := 0.0
			for i, j := range perm {
				s += cost[i][j]
			}
			best = min(best, s)
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0)
	return best
}

func TestAssignMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := 1 + trial%7
		cost := make([][]float64, n)
		for i := range cost {
			cost[i] = make([]float64, n)
			for j := range cost[i] {
				switch trial % 3 {
				case 0:
					cost[i][j] = rng.Float64()
				case 1:
					cost[i][j] = float64(rng.IntN(3)) // many ties
				default:
					cost[i][j] = rng.NormFloat64() * 100 // negative entries
				}
			}
		}
		a, total := assign(cost)
		seen := slices.Clone(a)
		slices.Sort(seen)
		for i, j := range seen {
			if i != j {
				t.Fatalf("trial %d: %v is not a permutation", trial, a)
			}
		}
		want := bruteForce(cost)
		if math.Abs(total-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("trial %d: total %v, brute force %v", trial, total, want)
		}
	}
}

func TestAssignKnown(t *testing.T) {
	cases := []struct {
		cost [][]float64
		want []int
	}{
		{nil, []int{}},
		{[][]float64{{5}}, []int{0}},
		{[][]float64{{0, 1}, {1, 0}}, []int{0, 1}},
		{[][]float64{{4, 1, 3}, {2, 0, 5}, {3, 2, 2}}, []int{1, 0, 2}},
		{[][]float64{{9, 9, 0}, {0, 9, 9}, {9, 0, 9}}, []int{2, 0, 1}},
	}
	for _, c := range cases {
		if a, _ := assign(c.cost); !slices.Equal(a, c.want) {
			t.Errorf("assign(%v) = %v, want %v", c.cost, a, c.want)
		}
	}
}

func TestAssignPanicsOnNonSquare(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	assign([][]float64{{1, 2}})
}

func BenchmarkAssign(b *testing.B) {
	for _, n := range []int{50, 200} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		cost := make([][]float64, n)
		for i := range cost {
			cost[i] = make([]float64, n)
			for j := range cost[i] {
				cost[i][j] = rng.Float64()
			}
		}
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for b.Loop() {
				assign(cost)
			}
		})
	}
}
