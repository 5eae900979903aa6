package modelfile

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/gzfile/gztest"
)

func TestLoadGzip(t *testing.T) {
	dir := t.TempDir()
	tiny := []byte(readString(t, tinyNNet))
	act := []byte(readString(t, actJSON))
	stale := copyTo(t, actJSON, dir, "stale.nnet") // a JSON file where the .gz holds the NNet one
	gztest.WriteFile(t, filepath.Join(dir, "stale.nnet.gz"), tiny)
	copyTo(t, tinyNNet, dir, "same.nnet")
	gztest.WriteFile(t, filepath.Join(dir, "same.nnet.gz"), tiny)
	for _, tc := range []struct {
		name, path string
		format     Format
		sniffed    bool
		read       string // the file Load reads
	}{
		{"by name", gztest.WriteFile(t, filepath.Join(dir, "a.nnet.gz"), tiny), NNet, false, "a.nnet.gz"},
		{"by content", gztest.WriteFile(t, filepath.Join(dir, "net"), act), JSON, true, "net"},
		{"misnamed", gztest.WriteFile(t, filepath.Join(dir, "b.nnet"), tiny), NNet, false, "b.nnet"},
		{"only the gz", filepath.Join(dir, "a.nnet"), NNet, false, "a.nnet.gz"},
		{"stale loose file", stale, NNet, false, "stale.nnet.gz"},
		{"loose file as the gz", filepath.Join(dir, "same.nnet"), NNet, false, "same.nnet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net, info, err := Load(tc.path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if info.Format != tc.format || info.Sniffed != tc.sniffed || info.Path != filepath.Join(dir, tc.read) || net == nil {
				t.Errorf("format %v sniffed %v path %s; want %v %v %s", info.Format, info.Sniffed, info.Path, tc.format, tc.sniffed, tc.read)
			}
		})
	}
	empty := gztest.WriteFile(t, filepath.Join(dir, "empty.json.gz"), nil)
	if _, _, err := Load(empty, Options{}); !errors.Is(err, ErrNotModel) || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty gzip: %v", err)
	}
}
