package jsonnet

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/nnbound/nnbound/nn"
)

// Write writes net as JSON in the layout of the paper's files: one weight
// row per line, every number printed with %.17g (exact round trip), the
// Identity activation written "linear". It returns an error if net does
// not validate or w fails.
func Write(w io.Writer, net *nn.Network) error {
	if err := net.Validate(); err != nil {
		return fmt.Errorf("jsonnet: %w", err)
	}
	err := net.RequirePlain("the JSON format")
	if err == nil {
		err = net.RequireDense("the JSON format")
	}
	if err != nil {
		return fmt.Errorf("jsonnet: %w", err)
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n \"layers\": [\n")
	for k, l := range net.Layers {
		bw.WriteString("  {\n   \"weight\": [\n")
		raw := l.W.RawMatrix()
		for i := range raw.Rows {
			bw.WriteString("    ")
			writeNumbers(bw, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols])
			if i < raw.Rows-1 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
		}
		bw.WriteString("   ],\n   \"bias\": ")
		writeNumbers(bw, l.B)
		fmt.Fprintf(bw, ",\n   \"activation\": %q", activationName(l.Act.Kind))
		switch l.Act.Kind {
		case nn.LeakyReLU, nn.ELU:
			fmt.Fprintf(bw, ",\n   \"alpha\": %s", format(l.Act.Alpha))
		case nn.HardTanh:
			fmt.Fprintf(bw, ",\n   \"lo\": %s,\n   \"hi\": %s", format(l.Act.Lo), format(l.Act.Hi))
		}
		bw.WriteString("\n  }")
		if k < len(net.Layers)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString(" ]\n}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("jsonnet: %w", err)
	}
	return nil
}

// activationName returns the JSON name of k ("linear" for Identity, as in
// the paper's files).
func activationName(k nn.ActivationKind) string {
	if k == nn.Identity {
		return "linear"
	}
	return k.String()
}

// writeNumbers writes v as a JSON array.
func writeNumbers(bw *bufio.Writer, v []float64) {
	bw.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(format(x))
	}
	bw.WriteByte(']')
}

// format prints x with %.17g.
func format(x float64) string {
	return strconv.FormatFloat(x, 'g', 17, 64)
}
