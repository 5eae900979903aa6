package boundstest

import (
	"math"
	"testing"

	"github.com/nnbound/nnbound/internal/benchdata"
	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
)

// ACASInstance is one instance of the peers' ACAS Xu float16 benchmark as
// benchdata.LoadACAS reads it, with the float32 box the peers' tools
// computed (benchdata.Float32), which the data's own search sampled.
type ACASInstance struct{ *benchdata.ACASInstance }

// ACASInstances returns the 84 instances of properties 3 and 4, skipping
// the test when the shared benchmark data is absent.
func ACASInstances(t testing.TB) []ACASInstance {
	t.Helper()
	out := acasLoad(t, []string{"3", "4"}, nil)
	for _, inst := range out {
		if math.IsNaN(inst.AttainedLo) || math.IsNaN(inst.AttainedHi) || math.IsNaN(inst.NeuroDiff) {
			t.Fatalf("no attained differences or NeuroDiff bound for property %s net %s", inst.Prop, inst.Net)
		}
	}
	if len(out) != 84 {
		t.Fatalf("found %d ACAS Xu instances of properties 3 and 4, want 84", len(out))
	}
	return out
}

// ACASProperty returns the instance of property prop on net (i_j) of the
// peers' ACAS Xu float16 benchmark; it skips the test when the shared data
// is absent.
func ACASProperty(t testing.TB, prop, net string) ACASInstance {
	t.Helper()
	return acasLoad(t, []string{prop}, []string{net})[0]
}

// acasLoad returns the instances of props on nets (benchdata.LoadACAS),
// skipping the test when the shared data is absent.
func acasLoad(t testing.TB, props, nets []string) []ACASInstance {
	t.Helper()
	insts, err := benchdata.LoadACAS(sharedtest.Path(t, "data", "benchmarks"), props, nets, benchdata.Float32)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]ACASInstance, len(insts))
	for i, inst := range insts {
		out[i] = ACASInstance{inst}
	}
	return out
}

// Networks reads the instance's core networks f and f'.
func (a ACASInstance) Networks(t testing.TB) (f, g *nn.Network) {
	t.Helper()
	f, g, err := a.ACASInstance.Networks()
	if err != nil {
		t.Fatal(err)
	}
	return f, g
}
