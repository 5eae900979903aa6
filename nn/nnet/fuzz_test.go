package nnet

import (
	"os"
	"testing"
)

// FuzzParse checks that no input makes Parse panic or accept a network that
// does not validate. Run it long with
//
//	go test ./nn/nnet -run '^$' -fuzz FuzzParse -fuzztime 10m
func FuzzParse(f *testing.F) {
	for _, name := range []string{"tiny.nnet", "trap.nnet", "unbounded.nnet"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(tinyText))
	f.Add([]byte("1,1,1,1,\n1,1,\n0,\n0,\n1,\n0,0,\n1,1,\n2,\n3,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, core := range []bool{false, true} {
			net, info, err := Parse("fuzz.nnet", data, Options{Core: core})
			if err != nil {
				continue
			}
			if err := net.Validate(); err != nil {
				t.Fatalf("accepted an invalid network: %v", err)
			}
			if net.InputSize() != info.Sizes[0] {
				t.Fatalf("input size %d, header %d", net.InputSize(), info.Sizes[0])
			}
			x := make([]float64, net.InputSize())
			if _, err := net.Eval(x); err != nil {
				t.Fatal(err)
			}
		}
	})
}
