package main

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
	f := int8Flags{dir: filepath.Join("..", "..", "nn", "onnx", "testdata", "qdq"),
		models: []string{"sin3x_relu"}, schemes: []string{"pertensor"}, maxPieces: 4}
	if err := runInt8(context.Background(), &out, f); err != nil {
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
