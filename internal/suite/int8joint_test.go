package suite

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestInt8JointTable runs bench int8joint on one ball of the int8 digits
// model and checks its row: both bounds at least the error found, the
// SDP's not looser than bound propagation's.
func TestInt8JointTable(t *testing.T) {
	var out bytes.Buffer
	o := DefaultInt8JointOptions()
	o.Dir, o.Schemes, o.Balls, o.Box = filepath.Join("..", "..", "nn", "onnx", "testdata", "qdq"), []string{"pertensor"}, 1, false
	o.Certify.Refine.TimeBudget = 0
	o.Certify.SearchWork /= 100 // the row's order of bounds and error is under test, not the search
	if err := Int8Joint(context.Background(), &out, &o); err != nil {
		t.Fatal(err)
	}
	var row []string
	for line := range strings.Lines(out.String()) {
		if strings.Contains(line, "ball 0") {
			row = strings.Fields(line)
		}
	}
	if len(row) < 9 {
		t.Fatalf("no row for ball 0:\n%s", out.String())
	}
	num := func(i int) float64 {
		v, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			t.Fatalf("field %d of %q: %v", i, row, err)
		}
		return v
	}
	before, after, found := num(3), num(4), num(6)
	if !(after <= before && found <= after) {
		t.Fatalf("before %v, after %v, found %v; table:\n%s", before, after, found, out.String())
	}
	if !strings.Contains(out.String(), "pertensor: median ratio over the 1 balls") {
		t.Fatalf("no median ratio:\n%s", out.String())
	}
}
