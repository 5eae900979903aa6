package nnet

import (
	"fmt"
	"strconv"
	"strings"
)

// String returns a multi-line "key: value" summary of the header, as
// nnbound inspect prints it. Long vectors are abbreviated.
func (info *Info) String() string {
	var b strings.Builder
	line := func(key, format string, a ...any) {
		fmt.Fprintf(&b, "%-14s%s\n", key+":", fmt.Sprintf(format, a...))
	}
	line("format", "NNet, %d layers (ReLU hidden, affine output)", len(info.Sizes)-1)
	if len(info.Comments) > 0 {
		plural := "s"
		if len(info.Comments) == 1 {
			plural = ""
		}
		line("comments", "%d line%s", len(info.Comments), plural)
	}
	line("input min", "%s", vector(info.InputMin))
	line("input max", "%s", vector(info.InputMax))
	line("input mean", "%s", vector(info.InputMean))
	line("input range", "%s", vector(info.InputRange))
	line("output", "y*%s + %s", num(info.OutputRange), num(info.OutputMean))
	if info.Core {
		line("network", "normalised core (x_norm -> y_norm)")
	} else {
		line("network", "raw units (clipping and normalisation built in)")
	}
	for _, n := range info.Notes {
		line("note", "%s", n)
	}
	return b.String()
}

// vector formats v, abbreviating long or constant vectors.
func vector(v []float64) string {
	if len(v) > 1 && allEqual(v) {
		return fmt.Sprintf("%s (all %d)", num(v[0]), len(v))
	}
	const show = 6
	parts := make([]string, 0, show+1)
	for i, x := range v {
		if i == show {
			parts = append(parts, fmt.Sprintf("... (%d values)", len(v)))
			break
		}
		parts = append(parts, num(x))
	}
	return strings.Join(parts, ", ")
}

func allEqual(v []float64) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}

// num formats x in the shortest form that reads back exactly.
func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
