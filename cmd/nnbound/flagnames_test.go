package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagNamesOneMeaning checks that a flag name means one thing on every
// command that shows it: the same value type, except where sweep and
// allocate take a list of what the others take one of. (export's -o was
// --output FILE while compare's --output is an index: a script mixing
// them wrote a file named 3.)
func TestFlagNamesOneMeaning(t *testing.T) {
	lists := map[string]bool{"frac-bits": true, "bits": true, "neurons": true, "sparsity": true, "layers": true}
	type use struct{ typ, cmd string }
	seen := map[string]use{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || lists[f.Name] {
				return
			}
			u := use{f.Value.Type(), c.CommandPath()}
			if prev, ok := seen[f.Name]; ok && prev.typ != u.typ {
				t.Errorf("--%s is a %s in %s but a %s in %s", f.Name, prev.typ, prev.cmd, u.typ, u.cmd)
			}
			seen[f.Name] = u
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
	if seen["output"].typ != "int" || seen["out"].typ != "string" {
		t.Errorf("--output %+v, --out %+v: want an index and a directory", seen["output"], seen["out"])
	}
}

// TestExportOutputAlias checks that export's old --output FILE still
// writes the file -o and --save write, with a note on stderr.
func TestExportOutputAlias(t *testing.T) {
	dir := t.TempDir()
	var want []byte
	for _, flag := range []string{"-o", "--save", "--output"} {
		p := filepath.Join(dir, strings.TrimLeft(flag, "-")+".dat-s")
		var stdout, stderr bytes.Buffer
		if code := run([]string{"export", sin3x, "--frac-bits", "4", flag, p}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", flag, code, stderr.String())
		}
		note := strings.Contains(stderr.String(), "note: export's --output is now -o or --save FILE")
		if note != (flag == "--output") {
			t.Errorf("%s: stderr %q", flag, stderr.String())
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Errorf("%s wrote another file than -o", flag)
		}
	}
}
