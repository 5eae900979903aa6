package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteOutput prints the output y of a network (nnbound eval) as one
// line of numbers, or as {"schema":1,"output":[...]}. Outputs are finite for finite
// inputs except on overflow, which JSON cannot hold: they are then an
// error.
func WriteOutput(w io.Writer, y []float64, jsonOut bool) error {
	if jsonOut {
		for i, v := range y {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("report: output %d is %v, which JSON cannot hold", i+1, v)
			}
		}
		data, err := json.Marshal(struct {
			Schema int       `json:"schema"`
			Output []float64 `json:"output"`
		}{Schema, y})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	parts := make([]string, len(y))
	for i, v := range y {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	_, err := fmt.Fprintln(w, strings.Join(parts, " "))
	return err
}
