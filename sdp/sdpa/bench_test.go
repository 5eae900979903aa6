package sdpa

import (
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
)

// BenchmarkRead reads SDPLIB files of increasing size (the largest of the
// set is control7, 2.1 MB).
func BenchmarkRead(b *testing.B) {
	dir := sharedtest.Path(b, "data", "sdplib")
	for _, name := range []string{"theta1", "mcp250-1", "control7"} {
		path := filepath.Join(dir, name+".dat-s")
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
