package sdpa

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecode checks that Decode never panics, that what it accepts is a
// valid problem no larger than its input, and that Write reads back to
// the same problem. Run with: go test -fuzz=FuzzDecode ./sdp/sdpa/
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.dat-s"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"", "1\n1\n2\n1\n0 1 1 2 1\n", "1\n1\n-2\n1\n1 1 2 2 -1e-300\n",
		"3=m\n(2)\n{2,-1}\n1,2,3\n0 1 2 1 1e308\n0 1 1 2 1e308\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted an invalid problem: %v", err)
		}
		if len(p.C) > len(data) || len(p.Blocks) > len(data) {
			t.Fatalf("m = %d, %d blocks from %d bytes", len(p.C), len(p.Blocks), len(data))
		}
		var buf bytes.Buffer
		if err := Write(&buf, p); err != nil {
			t.Fatalf("cannot write an accepted problem: %v", err)
		}
		q, err := Decode(&buf, "rewritten")
		if err != nil {
			t.Fatalf("cannot read back: %v", err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip differs:\n%+v\n%+v", p, q)
		}
	})
}
