package shared

import (
	"encoding/json"
	"os"
	"testing"
)

// ReadJSON decodes the JSON file at path into a T, failing t if the file
// cannot be read or decoded. The shared folder's reference samples
// (samples.json beside each group of networks) are read this way.
func ReadJSON[T any](t testing.TB, path string) T {
	t.Helper()
	var v T
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// Flatten returns the numbers of a nested JSON array decoded into an any,
// in order: [[1, 2], [3]] gives [1 2 3]. Values other than numbers and
// arrays are skipped. Reference inputs and outputs are stored in the
// tensor shape of their model; the networks take them flat.
func Flatten(v any) []float64 {
	switch v := v.(type) {
	case float64:
		return []float64{v}
	case []any:
		var out []float64
		for _, e := range v {
			out = append(out, Flatten(e)...)
		}
		return out
	}
	return nil
}
