package vnncomp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nnbound/nnbound/vnncomp"
)

// ExampleRun runs a two-row benchmark with a decider that proves every
// instance, then runs it again: the second run finds the result files and
// runs nothing.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "vnncomp-example")
	defer os.RemoveAll(dir)
	for _, f := range []string{"A.onnx", "B.onnx", "p0.vnnlib", "p1.vnnlib"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	csv := filepath.Join(dir, "instances.csv")
	os.WriteFile(csv, []byte(`"[('f', 'A.onnx'), ('g', 'B.onnx')]",p0.vnnlib,60
"[('f', 'A.onnx'), ('g', 'B.onnx')]",p1.vnnlib,60
`), 0o644)

	proves := func(ctx context.Context, in vnncomp.Instance) vnncomp.Outcome {
		return vnncomp.Outcome{Result: vnncomp.Unsat, Time: in.Timeout / 60}
	}
	out := filepath.Join(dir, "results")
	for range 2 {
		sum, err := vnncomp.Run(context.Background(), csv, proves, vnncomp.Options{Dir: out})
		if err != nil {
			fmt.Println(err)
			return
		}
		sum.WriteTable(os.Stdout)
	}
	result, _ := os.ReadFile(filepath.Join(out, "0001_A+B+p1.txt"))
	fmt.Printf("%s", result)
	// Output:
	// result   this run  earlier runs
	// unsat           2             0
	// sat             0             0
	// timeout         0             0
	// unknown         0             0
	// error           0             0
	// total           2             0
	// shard 0/1: 2 of 2 rows; 2.0 s in the rows run now
	// result   this run  earlier runs
	// unsat           0             2
	// sat             0             0
	// timeout         0             0
	// unknown         0             0
	// error           0             0
	// total           0             2
	// shard 0/1: 2 of 2 rows; 0.0 s in the rows run now
	// unsat
}
