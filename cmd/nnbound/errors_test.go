package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Models of the repository used by the bad-input tests.
const (
	sin3x       = "../../nn/onnx/testdata/torch/sin3x_relu/sin3x_relu.onnx" // 1 input, 1 output
	tanh2       = "../../nn/onnx/testdata/torch/tanh_2in/tanh_2in.onnx"     // 2 inputs, 2 outputs
	unsupported = "../../nn/onnx/testdata/graphs/bad_unsupported_op.onnx"
	maxpoolCNN  = "../../nn/onnx/testdata/cnn_unsupported/cnn_maxpool.onnx" // Conv, Relu, MaxPool, Flatten, Gemm
	qdqBad      = "../../nn/onnx/testdata/qdq/bad/"
)

// TestBadInput runs nnbound on bad input of every kind issue 5 lists and
// checks that each gets one clear line on stderr, nothing on stdout, the
// right exit code, no stack trace and no output file.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out") // every output file goes here; it must stay empty
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	in := func(name string) string { return filepath.Join(dir, name) }
	rng := rand.New(rand.NewPCG(11, 12))
	random := make([]byte, 512)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	for _, name := range []string{"random.onnx", "random.nnet", "random.json", "random.vnnlib"} {
		if err := os.WriteFile(in(name), random, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(in("empty.onnx"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(sin3x)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in("cut.onnx"), whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"afile": "not a directory\n", "two.csv": "0.1,0.2\n", "none.csv": ""} {
		if err := os.WriteFile(in(name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	underFile := func(name string) string { return filepath.Join(in("afile"), name) } // a directory that cannot be made
	// directories where a file is expected
	for _, name := range []string{"d.onnx", "d.dat-s"} {
		if err := os.Mkdir(in(name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vnnlib2 := filepath.Join("..", "..", "docs", "examples", "vnncomp-sin3x", "eps0.03.vnnlib")
	plot := filepath.Join(out, "fig.png")
	sdpFile := filepath.Join(out, "p.dat-s")

	cases := []struct {
		name string
		args []string
		code int
		want string // a substring of the stderr line
	}{
		// Files.
		{"missing file", []string{"sweep", in("missing.onnx"), "--plot", plot}, exitFail, "missing.onnx"},
		{"missing file compare", []string{"compare", in("missing.onnx"), sin3x}, exitFail, "missing.onnx"},
		{"directory", []string{"sweep", dir, "--plot", plot}, exitFail, "directory"},
		{"empty file", []string{"export", in("empty.onnx"), "--frac-bits", "2", "-o", sdpFile}, exitFail, "empty"},
		{"random ONNX", []string{"sweep", in("random.onnx"), "--plot", plot}, exitFail, "random.onnx"},
		{"truncated ONNX", []string{"compare", sin3x, in("cut.onnx")}, exitFail, "cut.onnx: truncated or corrupt file"},
		{"random NNet", []string{"compare", in("random.nnet"), in("random.nnet")}, exitFail, "random.nnet"},
		{"random JSON", []string{"export", in("random.json"), "--frac-bits", "2", "-o", sdpFile}, exitFail, "random.json"},
		{"random VNN-LIB", []string{"demo", "--vnnlib", in("random.vnnlib"), "--plot", plot}, exitFail, "random.vnnlib:1:"},
		{"missing VNN-LIB", []string{"demo", "--vnnlib", in("none.vnnlib"), "--plot", plot}, exitFail, "none.vnnlib"},
		{"unsupported op", []string{"sweep", unsupported, "--plot", plot}, exitFail, "bad_unsupported_op.onnx"},
		{"graph with --plot", []string{"quantise", maxpoolCNN, "--frac-bits", "4", "--certify", "--plot", plot}, exitUsage,
			"--plot is not supported for graph networks yet"},
		// Int8 (QDQ) models and --scheme int8.
		{"integer kernel op", []string{"inspect", qdqBad + "qlinearmatmul.onnx"}, exitFail, `"QLinearMatMul"`},
		{"zero scale", []string{"eval", qdqBad + "zero_scale.onnx", "--input", "0,0"}, exitFail, "scale 0 is 0"},
		{"negative scale", []string{"inspect", qdqBad + "negative_scale.onnx"}, exitFail, "scale 0 is -0.5"},
		{"zero point range", []string{"inspect", qdqBad + "zero_point_range.onnx"}, exitFail, "outside the UINT8 range"},
		{"scheme", []string{"quantise", sin3x, "--scheme", "int4", "--save", filepath.Join(out, "q.onnx")}, exitUsage, "--scheme"},
		{"int8 with frac-bits", []string{"quantise", sin3x, "--scheme", "int8", "--frac-bits", "4", "--save", filepath.Join(out, "q.onnx")}, exitUsage, "--frac-bits"},
		{"bits", []string{"quantise", sin3x, "--scheme", "int8", "--bits", "9", "--save", filepath.Join(out, "q.onnx")}, exitUsage, "--bits 9"},
		{"per-channel without int8", []string{"quantise", sin3x, "--per-channel", "--save", filepath.Join(out, "q.onnx")}, exitUsage, "--scheme int8"},
		{"calibrate file", []string{"quantise", sin3x, "--scheme", "int8", "--calibrate", in("none.json"), "--save", filepath.Join(out, "q.onnx")}, exitUsage, "none.json"},
		{"int4 save", []string{"quantise", sin3x, "--scheme", "int8", "--bits", "4", "--save", filepath.Join(out, "q.onnx")}, exitFail, "UINT8"},
		{"sweep bits", []string{"sweep", sin3x, "--scheme", "int8", "--bits", "1:8", "--plot", plot}, exitUsage, "--bits"},
		{"act frac bits", []string{"sweep", sin3x, "--act-frac-bits", "-1", "--plot", plot}, exitUsage, "--act-frac-bits -1"},
		{"requant slack", []string{"compare", sin3x, sin3x, "--requant-slack", "-1"}, exitUsage, "--requant-slack -1"},
		{"mismatched sizes", []string{"compare", sin3x, tanh2}, exitFail, "cannot be compared"},
		{"mismatched sizes export", []string{"export", sin3x, tanh2, "-o", sdpFile}, exitFail, "cannot be compared"},

		// Input boxes.
		{"inverted box", []string{"demo", "--box", "1:-1", "--plot", plot}, exitUsage, "inverted"},
		{"inverted lo hi", []string{"sweep", sin3x, "--lo", "1", "--hi", "0", "--plot", plot}, exitUsage, "inverted"},
		{"NaN in box", []string{"demo", "--box", "nan:1", "--plot", plot}, exitUsage, "NaN"},
		{"NaN in lo", []string{"compare", sin3x, sin3x, "--lo", "NaN"}, exitUsage, "NaN"},
		{"box count", []string{"export", tanh2, tanh2, "--lo", "0,0,0", "-o", sdpFile}, exitUsage, "3 values"},
		{"box and vnnlib", []string{"demo", "--box", "0:1", "--vnnlib", in("random.vnnlib"), "--plot", plot}, exitUsage, "use one"},

		// Bit widths.
		{"frac-bits 0", []string{"demo", "--frac-bits", "0", "--plot", plot}, exitUsage, "--frac-bits 0"},
		{"frac-bits 60", []string{"demo", "--frac-bits", "60", "--plot", plot}, exitUsage, "--frac-bits 60"},
		{"sweep frac-bits 0", []string{"sweep", sin3x, "--frac-bits", "0:4", "--plot", plot}, exitUsage, "0 fractional bits"},
		{"sweep frac-bits 60", []string{"sweep", sin3x, "--frac-bits", "60", "--plot", plot}, exitUsage, "60 fractional bits"},
		{"export frac-bits 0", []string{"export", sin3x, "--frac-bits", "0", "-o", sdpFile}, exitUsage, "--frac-bits 0"},
		{"quantise frac-bits 60", []string{"quantise", sin3x, "--frac-bits", "60", "--save", filepath.Join(out, "q.json")}, exitUsage, "--frac-bits 60"},

		// Flags and arguments.
		{"unknown flag", []string{"demo", "--nope"}, exitUsage, "unknown flag: --nope"},
		{"unknown flag sweep", []string{"sweep", sin3x, "--nope"}, exitUsage, "unknown flag: --nope"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "unknown command"},
		{"unknown experiment", []string{"paper", "table9", "--out", out}, exitUsage, "table9"},
		{"no model", []string{"sweep"}, exitUsage, "arg"},
		{"bad plot format", []string{"demo", "--plot", filepath.Join(out, "fig.pdf")}, exitUsage, ".pdf"},
		{"bad target", []string{"sweep", sin3x, "--target-error", "-1", "--plot", plot}, exitUsage, "--target-error"},
		{"export no output", []string{"export", sin3x, sin3x}, exitUsage, "-o FILE"},
		{"export bad format", []string{"export", sin3x, sin3x, "--format", "mps", "-o", sdpFile}, exitUsage, "--format"},
		{"bad qc", []string{"compare", sin3x, sin3x, "--qc", "best"}, exitUsage, "--qc"},
		{"bad runs", []string{"paper", "table1", "--runs", "0", "--out", out}, exitUsage, "--runs"},
		{"one model for compare", []string{"compare", sin3x}, exitUsage, "compare needs A B (2 arguments), got 1"},
		{"negative timeout", []string{"compare", sin3x, sin3x, "--timeout", "-1s"}, exitUsage, "--timeout -1s: want 0 or more"},
		{"negative max-pieces", []string{"compare", sin3x, sin3x, "--max-pieces", "-1"}, exitUsage, "--max-pieces -1: want 0 (no cap) or more"},
		{"target ratio below 1", []string{"compare", sin3x, sin3x, "--target-ratio", "0.5"}, exitUsage, "--target-ratio 0.5: want a number >= 1"},
		{"negative timeout by its old name", []string{"compare", sin3x, sin3x, "--time-budget", "-1"}, exitUsage, "--timeout -1s: want 0 or more"},
		{"negative epsilon", []string{"verify", sin3x, sin3x, "--epsilon", "-1"}, exitUsage, `invalid argument "-1" for "--epsilon" flag: want a positive number`},
		{"one epsilon not positive", []string{"verify", tanh2, tanh2, "--epsilon", "0.1,0"}, exitUsage, `"--epsilon" flag: 0 is not a positive number`},
		{"timeout without a number", []string{"verify", sin3x, sin3x, "--epsilon", "1", "--timeout", "5 s"}, exitUsage, `"5 s" is neither a number of seconds nor a duration`},
		{"input-frac-bits 0", []string{"compare", sin3x, sin3x, "--input-frac-bits", "0"}, exitUsage, "--input-frac-bits 0: want 1 to 52"},
		{"input-frac-bits without quantised pairing", []string{"compare", sin3x, sin3x, "--input-frac-bits", "4"}, exitUsage, "--input-frac-bits goes with --pairing quantised (the pairing is same)"},
		{"input-frac-bits 53", []string{"compare", sin3x, sin3x, "--input-frac-bits", "53"}, exitUsage, "--input-frac-bits 53"},
		{"neurons and sparsity", []string{"prune", sin3x, "--neurons", "2", "--sparsity", "0.5", "--save", filepath.Join(out, "p.json")}, exitUsage, "--neurons and --sparsity do not go together"},
		{"too many neurons", []string{"prune", sin3x, "--neurons", "99", "--save", filepath.Join(out, "p.json")}, exitUsage, "99 neurons asked"},
		{"save-best without target", []string{"sweep", sin3x, "--save-best", filepath.Join(out, "b.json"), "--plot", plot}, exitUsage, "--save-best needs --target-error"},
		{"no save nor certify", []string{"quantise", sin3x, "--frac-bits", "4"}, exitUsage, "--save OUT is missing"},

		// Output paths and box sizes are checked before any work or file.
		{"plot in missing dir", []string{"compare", sin3x, sin3x, "--plot", filepath.Join(dir, "none", "f.png")}, exitUsage, "does not exist"},
		{"save in missing dir", []string{"quantise", sin3x, "--frac-bits", "4", "--save", filepath.Join(dir, "none", "q.json")}, exitUsage, "does not exist"},
		{"paper out under a file", []string{"paper", "table2", "--runs", "1", "--out", underFile("p")}, exitUsage, "--out"},
		{"agree report under a file", []string{"agree", tanh2, tanh2, "--data", in("two.csv"), "--radius", "0.01", "--out", filepath.Join(out, "a"), "--report", underFile("r")}, exitUsage, "--report"},
		{"agree out under a file", []string{"agree", tanh2, tanh2, "--data", in("two.csv"), "--radius", "0.01", "--out", underFile("o")}, exitUsage, "--out"},
		{"allocate report under a file", []string{"allocate", sin3x, "--target-error", "0.5", "--report", underFile("r")}, exitUsage, "--report"},
		{"vnncomp no instance", []string{"vnncomp", in("none.csv"), "--out", filepath.Join(out, "v")}, exitFail, "lists no instance"},
		{"save is a directory", []string{"quantise", sin3x, "--frac-bits", "4", "--save", in("d.onnx")}, exitUsage, `--save "` + in("d.onnx") + `" is a directory`},
		{"export in missing dir", []string{"export", sin3x, "--frac-bits", "4", "-o", filepath.Join(dir, "none", "p.dat-s")}, exitUsage, "does not exist"},
		{"export to a directory", []string{"export", sin3x, "--frac-bits", "4", "-o", in("d.dat-s")}, exitUsage, "is a directory"},
		{"box from VNN-LIB 2.0", []string{"compare", sin3x, sin3x, "--vnnlib", vnnlib2}, exitUsage, "is a VNN-LIB 2.0 two-network property"},
		{"verify negative timeout", []string{"verify", sin3x, sin3x, "--epsilon", "1", "--timeout", "-1"}, exitUsage, "--timeout -1s: want 0 or more"},
		{"verify epsilon count", []string{"verify", tanh2, tanh2, "--epsilon", "0.1,0.1,0.1"}, exitUsage, "--epsilon has 3 values: want one, or one per output (2)"},
		{"verify output range", []string{"verify", sin3x, sin3x, "--epsilon", "0.1", "--output", "3"}, exitUsage, "--output 3: the networks have 1 outputs (0..0)"},
		{"verify negative max-nodes", []string{"verify", sin3x, sin3x, "--epsilon", "1", "--max-nodes", "-1"}, exitUsage, "--max-nodes -1: want 0 or more"},
		{"agree negative workers", []string{"agree", tanh2, tanh2, "--data", in("two.csv"), "--radius", "0.01", "--workers", "-1", "--out", in("a")}, exitUsage, "--workers -1: want 0 or more"},
		{"agree radius over the domain", []string{"agree", tanh2, tanh2, "--data", in("two.csv"), "--radius", "2", "--out", in("a")}, exitUsage, "--radius 2 is at least the width of --domain 0:1"},
		{"allocate agreement timeout", []string{"allocate", sin3x, "--target-agreement", "0.9", "--data", in("two.csv"), "--radius", "0.01", "--timeout", "5"}, exitUsage, "--timeout goes with --target-error"},
		{"box count before save", []string{"quantise", tanh2, "--frac-bits", "4", "--certify", "--lo", "0,0,0", "--save", filepath.Join(out, "q.json")}, exitUsage, "3 values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, &stdout, &stderr)
			if code != c.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, c.code, stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
				t.Errorf("stderr is not one line: %q", msg)
			}
			if !strings.HasPrefix(msg, "nnbound: ") {
				t.Errorf("stderr %q does not start with \"nnbound: \"", msg)
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("stderr %q does not mention %q", msg, c.want)
			}
			for _, bad := range []string{"goroutine", "panic", "internal error", "Usage:"} {
				if strings.Contains(msg, bad) {
					t.Errorf("stderr %q contains %q", msg, bad)
				}
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("files left in the output directory: %v", entries)
				for _, e := range entries {
					os.RemoveAll(filepath.Join(out, e.Name()))
				}
			}
		})
	}
}

// TestUnwritableOutput checks that an output file or directory in a
// directory that takes no files is one usage error before any work: a
// read-only directory where permissions hold (not for root), else /proc.
func TestUnwritableOutput(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if f, err := os.CreateTemp(ro, "x"); err == nil { // root writes anyway
		f.Close()
		os.Remove(f.Name())
		if fi, err := os.Stat("/proc/self"); err != nil || !fi.IsDir() {
			t.Skip("no directory here refuses files")
		}
		ro = "/proc"
	}
	data := filepath.Join(dir, "two.csv")
	if err := os.WriteFile(data, []byte("0.1,0.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(name string) string { return filepath.Join(ro, name) }
	for _, args := range [][]string{
		{"quantise", sin3x, "--frac-bits", "4", "--certify", "--save", at("q.onnx")},
		{"compare", sin3x, sin3x, "--plot", at("f.png")},
		{"sweep", sin3x, "--frac-bits", "4", "--plot", at("f.svg")},
		{"export", sin3x, "--frac-bits", "4", "-o", at("p.dat-s")},
		{"agree", tanh2, tanh2, "--data", data, "--radius", "0.01", "--out", at("a")},
		{"agree", tanh2, tanh2, "--data", data, "--radius", "0.01", "--out", filepath.Join(dir, "a"), "--report", at("r")},
		{"allocate", sin3x, "--target-error", "0.5", "--save", at("s.json")},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		msg := stderr.String()
		if code != exitUsage || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "cannot create files in "+ro) || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", args, code, msg, stdout.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Errorf("agree made its --out directory before failing on --report")
	}
}
