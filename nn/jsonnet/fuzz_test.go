package jsonnet

import (
	"bytes"
	"os"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// FuzzParse checks that no input makes Parse panic, that what it accepts
// validates, and that accepted networks survive a Write/Parse round trip.
// Run it long with
//
//	go test ./nn/jsonnet -run '^$' -fuzz FuzzParse -fuzztime 10m
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/activations.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"layers":[{"weight":[[1,2]],"bias":[0],"activation":"relu"},{"weight":[[3]],"bias":[1],"activation":"linear"}]}`))
	f.Add([]byte(`{"layers":[{"weight":[[1e308]],"bias":[-0],"activation":"hardtanh","lo":-1e-300,"hi":2}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		net, err := Parse("fuzz.json", data)
		if err != nil {
			return
		}
		if err := net.Validate(); err != nil {
			t.Fatalf("accepted an invalid network: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, net); err != nil {
			t.Fatal(err)
		}
		back, err := Parse("round trip", buf.Bytes())
		if err != nil {
			t.Fatalf("cannot read back what Write wrote: %v\n%s", err, buf.Bytes())
		}
		if !nn.Equal(net, back) {
			t.Fatal("round trip changed the network")
		}
	})
}
