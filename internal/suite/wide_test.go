package suite

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/internal/benchdata"
	"github.com/nnbound/nnbound/internal/shared/sharedtest"
)

// TestWideNets checks that the suites' networks are read from
// reference-results.tsv and that the MNIST ones absent from the folder are
// reported as not run.
func TestWideNets(t *testing.T) {
	dir := filepath.Dir(sharedtest.Path(t, "data", "benchmarks", "reference-results.tsv"))
	nets, err := benchdata.WideNets(dir, "mnist-global")
	if err != nil {
		t.Fatal(err)
	}
	if len(nets) != 3 || nets[0] != "mnist_relu_3_100" {
		t.Fatalf("MNIST networks %v, want mnist_relu_3_100 and two others", nets)
	}
	for _, n := range nets {
		wn, err := loadWideNet(dir, "mnist-global", n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if present := wn != nil; present != (n == "mnist_relu_3_100") {
			t.Errorf("%s: loaded %v", n, present)
		}
		if wn != nil && (len(wn.insts) != 1 || wn.insts[0].Net != n || math.IsNaN(wn.insts[0].NeuroDiff)) {
			t.Errorf("%s: instances %+v", n, wn.insts)
		}
	}
}
