package outward

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneHome checks that the packages that bound, certify or decide do
// no directed rounding of their own: no call of math.Nextafter (or
// Nextafter32) in their non-test sources, under any import name of math.
// Their rounding goes through this package.
func TestOneHome(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, pkg := range []string{"bounds", "certify", "verify", "qc", "sdp", "quantise", "align", "vnncomp"} {
		err := filepath.WalkDir(filepath.Join(root, pkg), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			names := map[string]bool{}
			for _, imp := range file.Imports {
				if imp.Path.Value == `"math"` {
					name := "math"
					if imp.Name != nil {
						name = imp.Name.Name
					}
					names[name] = true
				}
			}
			ast.Inspect(file, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || !strings.HasPrefix(sel.Sel.Name, "Nextafter") {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] {
					t.Errorf("%s: math.%s: round through internal/outward instead", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
