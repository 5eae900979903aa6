package modelfile

import (
	"bytes"
)

// sniff recognises a format from the start of data:
//
//   - JSON: the first non-space byte is '{';
//   - NNet: the first line is a "//" comment or starts with digits and a
//     comma ("7,5,5,50,");
//   - ONNX: the first byte is the protobuf tag of one of ModelProto's first
//     eight fields (ir_version, producer_name, ..., opset_import), which is
//     how exporters begin the file.
//
// It returns Unknown otherwise.
func sniff(data []byte) Format {
	t := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(t) == 0:
		return Unknown
	case t[0] == '{':
		return JSON
	case bytes.HasPrefix(t, []byte("//")) || nnetHeader(t):
		return NNet
	}
	switch data[0] {
	case 0x08, 0x12, 0x1a, 0x22, 0x28, 0x32, 0x3a, 0x42:
		return ONNX
	}
	return Unknown
}

// nnetHeader reports whether t starts with an integer followed by a comma.
func nnetHeader(t []byte) bool {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	return i > 0 && i < len(t) && t[i] == ','
}
