package verify

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/nnbound/nnbound/nn/nnet"
	"github.com/nnbound/nnbound/spec"
)

func TestZZScratch(t *testing.T) {
	dir := "/work/shared/data/benchmarks/acasxu-f16"
	net := "2_5"
	name := "ACASXU_run2a_" + net + "_batch_2000"
	f, _, _ := nnet.Read(filepath.Join(dir, "nnet", name+".nnet"), nnet.Options{Core: true})
	g, _, _ := nnet.Read(filepath.Join(dir, "compressed_nnets", name+"_16bit.nnet"), nnet.Options{Core: true})
	lo := []float64{0.6000000238418579, -0.49999988079071045, -0.49999988079071045, 0.44999998807907104, -0.5}
	hi := []float64{0.6798577308654785, 0.49999988079071045, 0.49999988079071045, 0.5, -0.44999998807907104}
	in := spec.Inputs{Box: spec.Box{Lo: lo, Hi: hi}}
	tol := Tolerance{Eps: []float64{0.05}, Outputs: []int{0}}
	o := DefaultOptions()
	o.MaxNodes = 400
	if err := check(f, g, in, tol, o); err != nil {
		t.Fatal(err)
	}
	d := newDecider(f, g, in, tol, o)
	res, _ := d.run(context.Background())
	t.Logf("%v nodes %d bound %g", res.Status, res.Nodes, res.Bound)
	q := append(nodeQueue(nil), d.queue...)
	sort.Slice(q, func(i, j int) bool { return q[i].prio > q[j].prio })
	for _, n := range q[:20] {
		w := make([]string, 5)
		for i := range w {
			w[i] = fmt.Sprintf("[%.3f %.3f]", n.lo[i], n.hi[i])
		}
		t.Logf("prio %.3g vol %.2g %v", n.prio, n.vol, w)
	}
	hist := map[int]int{}
	for _, n := range q {
		b := 0
		for p := n.prio; p > 1; p /= 4 {
			b++
		}
		hist[b]++
	}
	t.Logf("queue %d, prio histogram (powers of 4): %v", len(q), hist)
}
