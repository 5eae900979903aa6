package shared

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
