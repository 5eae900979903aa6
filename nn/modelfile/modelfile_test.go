package modelfile

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/jsonnet"
	"github.com/nnbound/nnbound/nn/nnet"
)

const (
	tinyNNet = "../nnet/testdata/tiny.nnet"
	actJSON  = "../jsonnet/testdata/activations.json"
)

// copyTo copies src to dir/name and returns the new path.
func copyTo(t *testing.T, src, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDispatch(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		path    string
		format  Format
		sniffed bool
		layers  int
	}{
		{tinyNNet, NNet, false, 3},
		{actJSON, JSON, false, 4},
		{copyTo(t, tinyNNet, dir, "tiny"), NNet, true, 3},
		{copyTo(t, actJSON, dir, "net.txt"), JSON, true, 4},
		{copyTo(t, tinyNNet, dir, "TINY.NNET"), NNet, false, 3},
	} {
		net, info, err := Load(tc.path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if info.Format != tc.format || info.Sniffed != tc.sniffed || len(net.Layers) != tc.layers {
			t.Errorf("%s: format %v sniffed %v, %d layers; want %v %v %d", tc.path, info.Format, info.Sniffed, len(net.Layers), tc.format, tc.sniffed, tc.layers)
		}
		if info.Size == 0 || info.Summary == "" || info.Core == nil {
			t.Errorf("%s: info %+v", tc.path, info)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nanJSON := `{"layers":[{"weight":[[1e999]],"bias":[0],"activation":"relu"}]}`
	for _, tc := range []struct {
		name, path, want string
		is               error
	}{
		{"missing", filepath.Join(dir, "missing.onnx"), "no such file", os.ErrNotExist},
		{"directory", dir, "is a directory", ErrNotModel},
		{"directory with extension", mkdir(t, dir, "d.nnet"), "is a directory", ErrNotModel},
		{"empty", write("empty.json", nil), "is empty", ErrNotModel},
		{"random bytes", write("random", []byte{0xde, 0xad, 0xbe, 0xef, 0x00}), "cannot tell the format", ErrUnknownFormat},
		{"random bytes as nnet", write("random.nnet", []byte{0xde, 0xad, 0xbe, 0xef, 0x00}), "random.nnet:1: header line", nnet.ErrFormat},
		{"random bytes as json", write("random.json", []byte{0xde, 0xad, 0xbe, 0xef, 0x00}), "random.json:1:1", jsonnet.ErrFormat},
		{"huge number", write("big.json", []byte(nanJSON)), "not a number in the float64 range", jsonnet.ErrFormat},
		{"NaN weight", write("nan.nnet", []byte(strings.Replace(readString(t, tinyNNet), "0.5,2.0,\n", "0.5,nan,\n", 1))), "value 2 is NaN", nn.ErrNotFinite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Load(tc.path, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
				t.Errorf("error %q: want it to contain %q and wrap %v", err, tc.want, tc.is)
			}
		})
	}
}

func mkdir(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		data string
		want Format
	}{
		{"  \n{\"layers\":[]}", JSON},
		{"// comment\n1,2,3,4,", NNet},
		{"7,5,5,50,\n", NNet},
		{"7 ,5", NNet},
		{"\x08\x07\x12\x04test", ONNX},
		{"\x3a\x10", ONNX},
		{"7\n", Unknown},
		{"hello", Unknown},
		{"\x00\x01", Unknown},
		{"   ", Unknown},
	} {
		if got := sniff([]byte(tc.data)); got != tc.want {
			t.Errorf("sniff(%q) = %v, want %v", tc.data, got, tc.want)
		}
	}
}

// TestTransformNNet checks that Transform compresses only the core of an
// NNet network and builds clipping and normalisation back around it.
func TestTransformNNet(t *testing.T) {
	raw, info, err := Load(tinyNNet, Options{})
	if err != nil {
		t.Fatal(err)
	}
	same, err := info.Transform(func(c *nn.Network) (*nn.Network, error) { return c, nil })
	if err != nil {
		t.Fatal(err)
	}
	if !nn.Equal(same, raw) {
		t.Error("identity transform changed the network")
	}
	// Halve the core's last layer: raw outputs become (y_norm/2)*8 + 1.
	half, err := info.Transform(func(c *nn.Network) (*nn.Network, error) {
		h := c.Clone()
		last := h.Layers[len(h.Layers)-1]
		last.W.Scale(0.5, last.W)
		for i := range last.B {
			last.B[i] /= 2
		}
		return h, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := half.Eval([]float64{3, -2}) // clipped to (1, 0): y_norm = (2, -0.875)
	if want := []float64{9, -2.5}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("transformed f = %v, want %v", got, want)
	}
	core, cinfo, err := Load(tinyNNet, Options{Core: true})
	if err != nil {
		t.Fatal(err)
	}
	same, err = cinfo.Transform(func(c *nn.Network) (*nn.Network, error) { return c, nil })
	if err != nil || same != core {
		t.Errorf("core transform: %v", err)
	}
	if !strings.Contains(cinfo.Summary, "normalised core") || !strings.Contains(info.Summary, "raw units") {
		t.Errorf("summaries:\n%s\n%s", cinfo.Summary, info.Summary)
	}
}

func TestWrite(t *testing.T) {
	net, _, err := Load(actJSON, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := Save(p, net); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !nn.Equal(net, back) {
		t.Error("saved network differs")
	}
	po := filepath.Join(dir, "out.ONNX")
	if err := Save(po, net); err != nil {
		t.Fatal(err)
	}
	back, info, err := Load(po, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !nn.Equal(net, back) || info.Format != ONNX || !strings.Contains(info.Summary, "DOUBLE") {
		t.Errorf("ONNX round trip: equal %v, info %+v", nn.Equal(net, back), info)
	}
	sniffed := filepath.Join(dir, "model")
	if err := os.Rename(po, sniffed); err != nil {
		t.Fatal(err)
	}
	if _, info, err := Load(sniffed, Options{}); err != nil || info.Format != ONNX || !info.Sniffed {
		t.Errorf("ONNX without extension: %v, %+v", err, info)
	}
	if err := Write(io.Discard, NNet, net); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("write NNet: err = %v", err)
	}
	bad := net.Clone()
	bad.Layers[0].B[0] = math.NaN()
	if err := Write(io.Discard, JSON, bad); !errors.Is(err, nn.ErrNotFinite) {
		t.Errorf("write NaN: err = %v", err)
	}
}

// TestInfoName: an NNet model says whether it was loaded in raw units or
// as its normalised core.
func TestInfoName(t *testing.T) {
	for _, c := range []struct {
		core bool
		want string
	}{{false, tinyNNet + " (NNet, raw units)"}, {true, tinyNNet + " (NNet, normalised core)"}} {
		net, info, err := Load(tinyNNet, Options{Core: c.core})
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Name(net); got != c.want {
			t.Errorf("core %v: %q, want %q", c.core, got, c.want)
		}
	}
}

// TestTransformErrorNamesFile checks that an error of the compression
// names the model file and wraps the compression's error.
func TestTransformErrorNamesFile(t *testing.T) {
	_, info, err := Load(tinyNNet, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := errors.New("too many neurons")
	_, err = info.Compress(func(*nn.Network) (*nn.Network, error) { return nil, bad })
	if !errors.Is(err, bad) || !strings.HasPrefix(err.Error(), tinyNNet+": ") {
		t.Errorf("Compress error = %v, want %s: wrapping %v", err, tinyNNet, bad)
	}
}
