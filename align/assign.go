package align

import "math"

// assign solves the square linear assignment problem
//
//	minimise   sum_i cost[i][a[i]]   over permutations a of 0..n-1
//
// exactly, by the Hungarian method with potentials (the O(n^3)
// shortest-augmenting-path form of Jonker and Volgenant): rows are added
// one at a time and each is given a column along a shortest alternating
// path under the reduced costs cost[i][j] - u[i] - v[j] >= 0. It returns
// a (row i gets column a[i]) and the total cost, summed over i in order.
// It panics if cost is not square (a programming error); the entries must
// be finite.
func assign(cost [][]float64) (a []int, total float64) {
	n := len(cost)
	for _, row := range cost {
		if len(row) != n {
			panic("align: assignment cost matrix is not square")
		}
	}
	// 1-based arrays; column 0 is a virtual column holding the row being
	// added. p[j] is the row assigned to column j, way[j] the previous
	// column on the shortest path to j.
	u := make([]float64, n+1)
	v := make([]float64, n+1)
	p := make([]int, n+1)
	way := make([]int, n+1)
	minv := make([]float64, n+1)
	used := make([]bool, n+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j], used[j] = math.Inf(1), false
		}
		for p[j0] != 0 {
			used[j0] = true
			i0, delta, j1 := p[j0], math.Inf(1), 0
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				if cur := cost[i0-1][j-1] - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
		}
		for j0 != 0 { // augment along the path
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	a = make([]int, n)
	for j := 1; j <= n; j++ {
		a[p[j]-1] = j - 1
	}
	for i, j := range a {
		total += cost[i][j]
	}
	return a, total
}
