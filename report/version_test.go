package report

import (
	"bytes"
	"testing"
)

// TestVersion: a test binary records no module version, and the record
// is {"version": ...}.
func TestVersion(t *testing.T) {
	v := Version()
	if v == "" {
		t.Fatal("empty version")
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, VersionRecord{Version: v}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"version": "`+v+`"`)) {
		t.Errorf("record %s", buf.String())
	}
}
