package dense

import (
	"os"
	"testing"
)

// TestMain chooses the kernels before any test runs, as the first call of
// an exported routine does, so that tests calling the package's internals
// directly run the kernels the CPU would (and withKernels sees them).
func TestMain(m *testing.M) {
	chooseKernels()
	os.Exit(m.Run())
}
