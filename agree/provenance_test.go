package agree

import "testing"

// TestNewProvenanceQuotes checks that the command line is quoted so that
// a POSIX shell reads the words back.
func TestNewProvenanceQuotes(t *testing.T) {
	p := NewProvenance([]string{"nnbound", "agree", "a b.onnx", "it's", "", "--radius=2/255"}, nil)
	want := `nnbound agree 'a b.onnx' 'it'\''s' '' --radius=2/255`
	if p.Command != want {
		t.Errorf("command %s, want %s", p.Command, want)
	}
	if p.Version == "" || p.GoVersion == "" {
		t.Errorf("versions %q %q", p.Version, p.GoVersion)
	}
}

// TestInputsDigest checks that the digest is 12 hex digits that change
// with the files' hashes.
func TestInputsDigest(t *testing.T) {
	a := InputsDigest([]File{{"f", "00"}, {"g", "11"}})
	b := InputsDigest([]File{{"f", "00"}, {"g", "12"}})
	if len(a) != 12 || a == b {
		t.Errorf("digests %q and %q", a, b)
	}
}
