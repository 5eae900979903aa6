package bounds

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn/nnet"
	"github.com/nnbound/nnbound/spec"
)

// TestMNISTFloat16 bounds f'_t - f_t for the MNIST network 784-100-100-10
// and its float16 copy on the peers' global boxes (every pixel +-3/255) of
// the first images, with each method, and logs the margin, the unstable
// neurons and the time: on 784 inputs neither slope optimisation nor
// splitting pays much. NNBOUND_LONG=1 only.
func TestMNISTFloat16(t *testing.T) {
	if os.Getenv("NNBOUND_LONG") == "" {
		t.Skip("NNBOUND_LONG=1 runs it")
	}
	dir := sharedtest.Path(t, "data", "benchmarks", "mnist")
	f, _, err := nnet.Read(filepath.Join(dir, "mnist_relu_3_100.nnet"), nnet.Options{Core: true})
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := nnet.Read(filepath.Join(dir, "mnist_relu_3_100_16bit.nnet"), nnet.Options{Core: true})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Images [][]float64 `json:"images"`
		Labels []int       `json:"labels"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "mnist_tests.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for im := range 5 {
		box := spec.Box{Lo: make([]float64, 784), Hi: make([]float64, 784)}
		for j, p := range doc.Images[im] {
			box.Lo[j], box.Hi[j] = max((p-3)/255, 0), min((p+3)/255, 1)
		}
		c := make([]float64, f.OutputSize())
		c[doc.Labels[im]] = 1
		for _, o := range []Options{{Method: MethodSymbolic}, {Method: MethodOptimised}, {Method: MethodOptimised, Split: 4}} {
			start := time.Now()
			pb, err := Pair(f, g, spec.Inputs{Box: box}, o)
			if err != nil {
				t.Fatal(err)
			}
			m, err := pb.Margin(c)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("image %d %s: |f'_t - f_t| <= %.4g, unstable %v, %v", im, optionsLabel(o), m.Mag(),
				mustUnstable(t, pb.Net1, f), time.Since(start).Round(time.Millisecond))
		}
	}
}
