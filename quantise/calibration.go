package quantise

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// ReadInputs reads calibration inputs (for SampleRanges) from a JSON file
// {"inputs": [[...], ...]}.
func ReadInputs(path string) ([][]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v struct {
		Inputs [][]float64 `json:"inputs"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("quantise: %s: %w", path, err)
	}
	if len(v.Inputs) == 0 {
		return nil, fmt.Errorf("quantise: %s: %w", path, errNoInputs)
	}
	return v.Inputs, nil
}

// errNoInputs reports a calibration file without inputs.
var errNoInputs = errors.New(`no "inputs"`)
