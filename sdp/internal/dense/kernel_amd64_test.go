//go:build amd64

package dense

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestCPUFeatures checks the package's own reading of the CPU's features
// against golang.org/x/sys/cpu, which it replaced so that nothing runs at
// start-up.
func TestCPUFeatures(t *testing.T) {
	avx512f, avx2fma := cpuFeatures()
	if want := cpu.X86.HasAVX512F; avx512f != want {
		t.Errorf("AVX-512F: got %v, x/sys/cpu says %v", avx512f, want)
	}
	if want := cpu.X86.HasAVX2 && cpu.X86.HasFMA; avx2fma != want {
		t.Errorf("AVX2 and FMA: got %v, x/sys/cpu says %v", avx2fma, want)
	}
	t.Logf("AVX-512F %v, AVX2 and FMA %v", avx512f, avx2fma)
}
