package vnnlib

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/gzfile/gztest"
)

// TestGzip reads gzipped properties, by name and by content, and the
// .gz beside a stale unpacked file.
func TestGzip(t *testing.T) {
	box, err := os.ReadFile(filepath.Join("testdata", "box2.vnnlib"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.vnnlib")
	os.WriteFile(stale, []byte("(declare-const X_0 Real)\n"), 0o644)
	gztest.WriteFile(t, filepath.Join(dir, "stale.vnnlib.gz"), box)
	for _, path := range []string{
		gztest.WriteFile(t, filepath.Join(dir, "s.vnnlib.gz"), box),
		gztest.WriteFile(t, filepath.Join(dir, "t.vnnlib"), box),
		filepath.Join(dir, "s.vnnlib"), // only s.vnnlib.gz exists
		stale,
	} {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if s.Box.Dim() != 2 || s.Box.Hi[0] != 0.25 {
			t.Errorf("%s: box [%v, %v]", path, s.Box.Lo, s.Box.Hi)
		}
	}
	pair := gztest.WriteFile(t, filepath.Join(dir, "p.vnnlib.gz"), []byte(pairHead+pairBox+"(assert (<= (- Y_g[1] Y_f[1]) 0.5))\n(assert (>= (- Y_g[1] Y_f[1]) -0.25))"))
	if p, err := ReadPropertyFile(pair); err != nil || p.Version() != "2.0" {
		t.Errorf("property %+v, %v", p, err)
	}
	if p, err := ReadPairFile(pair); err != nil || len(p.Outputs) != 1 {
		t.Errorf("pair %+v, %v", p, err)
	}
	bad := gztest.WriteFile(t, filepath.Join(dir, "bad.vnnlib.gz"), []byte("(assert (<= X_0 1))\n(bad"))
	if _, err := ReadFile(bad); err == nil || !strings.HasPrefix(err.Error(), "bad.vnnlib.gz:") {
		t.Errorf("error %v does not name bad.vnnlib.gz and its line", err)
	}
}
