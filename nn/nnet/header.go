package nnet

import (
	"fmt"
	"math"
)

// Info describes an NNet file: its header and how it was read.
type Info struct {
	Comments     []string // header comment lines, without the leading "//"
	Sizes        []int    // input size, then the output size of every layer
	MaxLayerSize int      // as declared (unused by the format)
	// InputMin and InputMax clip the raw inputs; an end of magnitude at
	// least NoBound (or infinite) means no bound on that side.
	InputMin, InputMax []float64
	// InputMean and InputRange normalise the clipped inputs.
	InputMean, InputRange []float64
	// OutputMean and OutputRange de-normalise every output.
	OutputMean, OutputRange float64
	// HeaderCounts are the numbers of entries on the minimum, maximum,
	// mean and range lines.
	HeaderCounts [4]int
	// Notes are remarks about the header worth showing to a user (ignored
	// entries, bounds treated as absent).
	Notes []string
	// Core is true when the network was read as its normalised core.
	Core bool
}

// NoBound is the magnitude from which a clipping bound counts as absent. C
// tools write FLT_MAX (3.40282e+38) for "no bound"; clipping at such a
// bound would cost all precision of the input (x - lo rounds to -lo).
const NoBound = 3.4e38

// maxHeaderSlack caps how many entries a header line may hold beyond those
// the inputs and output need, so a corrupt header cannot make the reader
// hold huge slices.
const maxHeaderSlack = 64

// readHeader reads the size, flag and normalisation lines. dataLen bounds
// the number of parameters the sizes may declare.
func readHeader(r *lineReader, dataLen int) (*Info, error) {
	info := &Info{}
	info.Comments = r.leadingComments()
	text, err := r.mustLine("the header")
	if err != nil {
		return nil, err
	}
	head, err := r.ints(text, "header line")
	if err != nil {
		return nil, err
	}
	if len(head) != 4 {
		return nil, r.errorf("header line has %d values, want 4 (numLayers, inputSize, outputSize, maxLayerSize)", len(head))
	}
	numLayers, inputSize, outputSize := head[0], head[1], head[2]
	info.MaxLayerSize = head[3]
	// Each value takes at least two bytes ("0,"), which bounds every size
	// and the parameter count by the file length.
	limit := dataLen / 2
	if numLayers < 1 || numLayers > limit {
		return nil, r.errorf("numLayers is %d", numLayers)
	}
	if text, err = r.mustLine("the layer sizes"); err != nil {
		return nil, err
	}
	if info.Sizes, err = r.ints(text, "layer sizes"); err != nil {
		return nil, err
	}
	if err := checkSizes(r, info, numLayers, inputSize, outputSize, limit); err != nil {
		return nil, err
	}
	if _, err := r.mustLine("the flag line"); err != nil {
		return nil, err
	}
	if err := readNormalisation(r, info, inputSize); err != nil {
		return nil, err
	}
	return info, nil
}

// checkSizes checks the layer sizes against the header and bounds the
// parameter count by limit.
func checkSizes(r *lineReader, info *Info, numLayers, inputSize, outputSize, limit int) error {
	s := info.Sizes
	if len(s) != numLayers+1 {
		return r.errorf("%d layer sizes for %d layers, want %d", len(s), numLayers, numLayers+1)
	}
	if s[0] != inputSize || s[numLayers] != outputSize {
		return r.errorf("layer sizes run from %d to %d but the header says %d inputs and %d outputs",
			s[0], s[numLayers], inputSize, outputSize)
	}
	params, biggest := 0, 0
	for k, n := range s {
		if n < 1 || n > limit {
			return r.errorf("layer size %d is %d", k, n)
		}
		biggest = max(biggest, n)
		if k > 0 {
			if s[k-1]+1 > (limit-params)/n {
				return r.errorf("layer sizes declare more parameters than the file can hold")
			}
			params += n * (s[k-1] + 1)
		}
	}
	if info.MaxLayerSize != biggest {
		info.Notes = append(info.Notes, fmt.Sprintf("header declares maxLayerSize %d, largest layer is %d", info.MaxLayerSize, biggest))
	}
	return nil
}

// readNormalisation reads the minimum, maximum, mean and range lines.
func readNormalisation(r *lineReader, info *Info, n int) error {
	names := [4]string{"input minimums", "input maximums", "means", "ranges"}
	want := [4]int{n, n, n + 1, n + 1}
	var v [4][]float64
	for i, name := range names {
		text, err := r.mustLine("the " + name)
		if err != nil {
			return err
		}
		if v[i], err = r.floats(text, name, want[i]+maxHeaderSlack); err != nil {
			return err
		}
		info.HeaderCounts[i] = len(v[i])
		if len(v[i]) < want[i] {
			return r.errorf("%s line has %d values, want at least %d", name, len(v[i]), want[i])
		}
		if len(v[i]) > want[i] {
			info.Notes = append(info.Notes, fmt.Sprintf("%s line has %d values for %d inputs: extra entries ignored%s",
				name, len(v[i]), n, outputNote(i)))
		}
		if err := checkEntries(r, i, name, v[i], n); err != nil {
			return err
		}
	}
	info.InputMin, info.InputMax = v[0][:n], v[1][:n]
	info.InputMean, info.InputRange = v[2][:n], v[3][:n]
	info.OutputMean, info.OutputRange = v[2][len(v[2])-1], v[3][len(v[3])-1]
	for j := range n {
		if lo, hi := info.InputMin[j], info.InputMax[j]; lo > hi {
			return fmt.Errorf("nnet: %s: input %d has minimum %v > maximum %v: %w", r.name, j+1, lo, hi, ErrFormat)
		}
	}
	for _, x := range append(append([]float64(nil), info.InputMin...), info.InputMax...) {
		if math.Abs(x) >= NoBound && !math.IsInf(x, 0) {
			info.Notes = append(info.Notes, fmt.Sprintf("clipping bounds of magnitude >= %g treated as no bound", NoBound))
			break
		}
	}
	return nil
}

// outputNote explains, for the mean and range lines, which entry is used.
func outputNote(line int) string {
	if line >= 2 {
		return " (the output's is the last)"
	}
	return ""
}

// checkEntries checks the used header entries of one line (the first n, and
// the last for means and ranges): minimums may be -Inf and maximums +Inf,
// means must be finite, ranges finite and positive.
func checkEntries(r *lineReader, line int, name string, v []float64, n int) error {
	for j, x := range v {
		if j >= n && (line < 2 || j < len(v)-1) {
			continue // an ignored entry
		}
		bad := false
		switch line {
		case 0:
			bad = math.IsInf(x, 1)
		case 1:
			bad = math.IsInf(x, -1)
		case 2:
			bad = math.IsInf(x, 0)
		case 3:
			bad = math.IsInf(x, 0) || x <= 0
		}
		if bad {
			return r.errorf("%s: value %d is %v", name, j+1, x)
		}
	}
	return nil
}
