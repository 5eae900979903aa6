package modelfile

import (
	"fmt"
	"testing"
)

// TestInfoHeading: a chain is named with its sizes, a graph that is not
// a chain with its nodes and parameters.
func TestInfoHeading(t *testing.T) {
	net, info, err := Load(tinyNNet, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.Heading(net, net.Graph()), tinyNNet+" (NNet, raw units), 2-2-2-2"; got != want {
		t.Errorf("chain: %q, want %q", got, want)
	}
	const resid = "../../testdata/graphs/digits_resid.onnx"
	g, chain, ginfo, err := LoadGraph(resid, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if chain != nil {
		t.Fatalf("%s read as a chain", resid)
	}
	want := fmt.Sprintf("%s (graph of %d nodes, %d parameters)", resid, len(g.Nodes), g.NumParams())
	if got := ginfo.Heading(nil, g); got != want {
		t.Errorf("graph: %q, want %q", got, want)
	}
}
