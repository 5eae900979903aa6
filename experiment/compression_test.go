package experiment

import (
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
)

// TestNewCompressionRecord records a compression that halves the last
// layer's weights of a small NNet model: the model, the sizes and the
// changes are those of the core network.
func TestNewCompressionRecord(t *testing.T) {
	_, info, err := modelfile.Load("../nn/nnet/testdata/tiny.nnet", modelfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := info.Compress(func(core *nn.Network) (*nn.Network, error) {
		h := core.Clone()
		last := h.Layers[len(h.Layers)-1]
		last.W.Scale(0.5, last.W)
		return h, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	j := NewCompressionRecord(info, "halved", c, "out.json", nil)
	if j.Model != info.Path || j.Format != "NNet" || j.Compression != "halved" || j.Saved != "out.json" {
		t.Errorf("record %+v", j)
	}
	if j.Changed == nil || *j.Changed == 0 || !(float64(j.LargestChange) > 0) || j.Parameters != info.Core.NumParams() {
		t.Errorf("changes: %+v", j)
	}
}
