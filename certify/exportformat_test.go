package certify

import "testing"

// TestExportFormatNames: the names round-trip, the extensions map to
// their formats, and anything else is refused.
func TestExportFormatNames(t *testing.T) {
	for _, f := range []ExportFormat{SDPA, CBF} {
		if g, err := ParseExportFormat(f.String()); err != nil || g != f {
			t.Errorf("%v: %v, %v", f, g, err)
		}
	}
	if _, err := ParseExportFormat("mps"); err == nil {
		t.Error("mps: no error")
	}
	for _, c := range []struct {
		path string
		f    ExportFormat
		ok   bool
	}{{"a.dat-s", SDPA, true}, {"dir/A.SDPA", SDPA, true}, {"a.cbf", CBF, true}, {"a.txt", 0, false}, {"-", 0, false}} {
		if f, ok := ExportFormatOf(c.path); f != c.f || ok != c.ok {
			t.Errorf("%s: %v %v, want %v %v", c.path, f, ok, c.f, c.ok)
		}
	}
}
