package suite

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestInt8Table runs bench int8 on one small pair and checks its row:
// certified, the bound not below the sampled error.
func TestInt8Table(t *testing.T) {
	var out bytes.Buffer
	o := DefaultInt8Options()
	o.Dir, o.Models, o.Schemes = filepath.Join("..", "..", "nn", "onnx", "testdata", "qdq"), []string{"sin3x_relu"}, []string{"pertensor"}
	o.Certify.Refine.MaxPieces, o.Certify.Split = 4, 0
	if err := Int8(context.Background(), &out, &o); err != nil {
		t.Fatal(err)
	}
	var row string
	for line := range strings.Lines(out.String()) {
		if strings.Contains(line, "pertensor") {
			row = line
		}
	}
	fields := strings.Fields(row)
	if len(fields) < 10 || fields[0] != "sin3x_relu" || fields[7] != "true" {
		t.Fatalf("row %q, want sin3x_relu certified with bound >= sampled; table:\n%s", row, out.String())
	}
	if !strings.Contains(out.String(), "median ratio") {
		t.Fatalf("no median ratio:\n%s", out.String())
	}
}
