package certify

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/randnet"
)

var update = flag.Bool("update", false, "rewrite the golden files of certify/testdata")

// TestExportGolden exports the root SDP of a Table 1 instance with both QC
// sets and compares it with the files in testdata.
func TestExportGolden(t *testing.T) {
	f := randnet.Paper(101, 1, 1, 10, 1)
	for _, qcs := range []QCSet{QCPaper, QCDefault} {
		o := paperOptions(bounds.Independent)
		o.QC = qcs
		var buf bytes.Buffer
		if err := Export(&buf, f, f, paperBox, o, SDPA); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "table1-l1-"+qcs.String()+".dat-s")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: export differs from the golden file (rerun with -update if intended)", path)
		}
	}
	if err := Export(&bytes.Buffer{}, f, f, paperBox, paperOptions(bounds.Independent), ExportFormat(9)); err == nil {
		t.Error("unknown format: no error")
	}
}
