package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared"
)

// readmeFiles are the pages whose commands are run: the README and the
// topic pages its examples moved to. docs/cluster.md is left out: its
// commands name the reader's own benchmark folder.
var readmeFiles = []string{"README.md", "docs/certify.md", "docs/compression.md", "docs/int8.md", "docs/sdp.md", "docs/verify.md"}

// readmeCommand is one nnbound command of the README or a topic page: its
// arguments, with repository files as absolute paths and outputs relative
// to the working directory, the exit status the page documents, and the
// output the page shows for it: the lines of the plain block right after
// the sh block whose last command it is (nil when none follows).
type readmeCommand struct {
	line  string
	args  []string
	exit  int
	shown []string
}

// exitRE matches the comment that documents a command's exit status
// ("# exit status 1"); a command without one must exit with 0.
var exitRE = regexp.MustCompile(`#.*\bexit status ([0-9]+)`)

// readmeCommands returns the "nnbound ..." commands of the sh blocks of
// the pages of readmeFiles, in order, joining continued lines, dropping
// comments and expanding variables set in a block (VAR=value) whose value
// is under the team's shared folder (the pages' ../shared prefix becomes
// sharedRoot; commands using a variable are dropped when sharedRoot is
// ""). An argument naming a file or folder of the repository becomes its
// path under root.
func readmeCommands(t *testing.T, root, sharedRoot string) []readmeCommand {
	t.Helper()
	var cmds []readmeCommand
	for _, name := range readmeFiles {
		cmds = append(cmds, pageCommands(t, filepath.Join(root, name), root, sharedRoot)...)
	}
	return cmds
}

// pageCommands returns the commands of one page, as readmeCommands does.
func pageCommands(t *testing.T, page, root, sharedRoot string) []readmeCommand {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []readmeCommand
	vars := map[string]string{}
	inBlock, line, exit := false, "", 0
	// fenced: inside a fenced block; shownBy: the command whose output
	// a plain block opening now shows (-1: none); shown: that block's lines
	// are being read.
	fenced, shownBy, shown, blockStart := false, -1, false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "```"):
			fenced = !fenced
			switch {
			case fenced && text == "```" && shownBy >= 0:
				shown = true
			case !fenced && inBlock && len(cmds) > blockStart:
				shownBy = len(cmds) - 1
			case !fenced:
				shownBy, shown = -1, false
			}
			inBlock = text == "```sh"
			blockStart = len(cmds)
			continue
		case shown:
			cmds[shownBy].shown = append(cmds[shownBy].shown, text)
			continue
		case !inBlock:
			if strings.TrimSpace(text) != "" {
				shownBy = -1
			}
			continue
		}
		if m := exitRE.FindStringSubmatch(text); m != nil {
			exit, _ = strconv.Atoi(m[1])
		}
		if i := strings.Index(text, " #"); i >= 0 {
			text = text[:i]
		}
		if line += strings.TrimSpace(strings.TrimSuffix(text, `\`)) + " "; strings.HasSuffix(text, `\`) {
			continue
		}
		fields := strings.Fields(line)
		code := exit
		line, exit = "", 0
		switch {
		case len(fields) == 1 && strings.Contains(fields[0], "="):
			name, value, _ := strings.Cut(fields[0], "=")
			if rest, ok := strings.CutPrefix(value, "../shared/"); ok && sharedRoot != "" {
				vars[name] = filepath.Join(sharedRoot, rest)
			}
		case len(fields) > 1 && fields[0] == "nnbound":
			if c, ok := readmeArgs(fields[1:], root, vars); ok {
				c.exit = code
				cmds = append(cmds, c)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// readmeOutputs are the flags whose value is a file the command writes.
var readmeOutputs = map[string]bool{"--plot": true, "--save": true, "--save-best": true, "--out": true, "-o": true}

// readmeArgs expands the variables of args and makes the paths of
// repository files it reads absolute (the subcommand, args[0], and
// outputs stay as they are: "verify" is also a folder); ok is false when
// a variable is not set.
func readmeArgs(args []string, root string, vars map[string]string) (c readmeCommand, ok bool) {
	c.line = strings.Join(args, " ")
	for i, a := range args {
		output := i > 0 && readmeOutputs[args[i-1]]
		if a == `""` { // the shell's empty argument, as in --plot ""
			a = ""
		} else if strings.HasPrefix(a, "$") {
			name, rest, _ := strings.Cut(a[1:], "/")
			v, set := vars[name]
			if !set {
				return c, false
			}
			a = filepath.Join(v, rest)
		} else if _, err := os.Stat(filepath.Join(root, a)); err == nil && i > 0 && !output && !strings.HasPrefix(a, "-") {
			a = filepath.Join(root, a)
		}
		c.args = append(c.args, a)
	}
	return c, true
}

// withoutTimeLimit returns args with "--timeout 0" added when their
// command has a wall-clock limit the page does not set (agree's 5 s a
// ball, the SDP budget of the certifying commands), so that both runs do
// the same work however busy the machine is. A command whose limit the
// page sets keeps it, and so does allocate --target-agreement, which has
// none.
func withoutTimeLimit(args []string) []string {
	cmd, _, err := newRootCmd(io.Discard, io.Discard).Find(args)
	if err != nil || cmd.Flags().Lookup("timeout") == nil || slices.Contains(args, "--target-agreement") {
		return args
	}
	for _, a := range args {
		if a == "--timeout" || strings.HasPrefix(a, "--timeout=") || a == "--time-budget" || strings.HasPrefix(a, "--time-budget=") {
			return args
		}
	}
	return append(slices.Clone(args), "--timeout", "0")
}

// timeRE matches a time as the commands print it ("0.408 s", "1.2 s").
var timeRE = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(e-?[0-9]+)? s\b`)

// solveTimeRE matches the time line of solve's report ("seconds   0.001").
var solveTimeRE = regexp.MustCompile(`(?m)^seconds +[0-9.e+-]+$`)

// ruleRE matches the rule under a table's header, whose width follows
// the widest time printed in its column.
var ruleRE = regexp.MustCompile(`-{2,}`)

// logTimeRE matches a time in a JSON-lines log ("seconds":0.093).
var logTimeRE = regexp.MustCompile(`"seconds":[0-9.e+-]+`)

// maskLines returns the lines of a command's output or of a page's block,
// times masked, table rules shortened and spaces squeezed.
func maskLines(text string) []string {
	text = solveTimeRE.ReplaceAllString(text, "seconds -")
	text = ruleRE.ReplaceAllString(timeRE.ReplaceAllString(text, "- s"), "--")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return lines
}

// checkShown checks that the lines the page shows for c appear in its
// output, in order (times masked, the paths of repository files relative
// to root, as the page writes them; the page may leave lines out, and
// marks some gaps with "...").
func checkShown(t *testing.T, c readmeCommand, output, root string) {
	t.Helper()
	got := strings.Split(strings.ReplaceAll(output, root+string(filepath.Separator), ""), "\n")
	for _, want := range maskLines(strings.Join(c.shown, "\n")) {
		if want == "" || want == "..." {
			continue
		}
		i := slices.Index(got, want)
		if i < 0 {
			t.Errorf("nnbound %s: the page shows the line\n\t%s\nwhich its output does not print (in this order):\n%s", c.line, want, output)
			return
		}
		got = got[i+1:]
	}
}

// runReadme runs cmds in dir, in-process through run (so each exit status
// is the one a user of the installed binary sees), checks each status
// against the one its page documents, and returns their outputs, times
// masked and spaces squeezed, and the files they left there (times in
// JSON-lines logs masked).
func runReadme(t *testing.T, dir string, cmds []readmeCommand) (outputs []string, files map[string][]byte) {
	t.Helper()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join("docs", "readme"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.exit {
			t.Errorf("nnbound %s: exit status %d, the page documents %d\n%s%s", c.line, code, c.exit, stdout.String(), stderr.String())
		}
		out := fmt.Sprintf("%s\nexit %d\n%s%s", c.line, code, stdout.String(), stderr.String())
		outputs = append(outputs, strings.Join(maskLines(out), "\n"))
	}
	files = map[string][]byte{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if strings.HasSuffix(p, ".jsonl") {
			b = logTimeRE.ReplaceAll(b, []byte(`"seconds":-`))
		}
		files[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return outputs, files
}

// TestReadmeTwice runs the nnbound commands of the README and the topic
// pages (readmeFiles) twice, each time in a fresh directory, and checks
// that each exits with the status its page documents, and that they print
// the same text (times excepted), the lines its page shows for it among
// them, and write the same files byte for byte (the commands that refresh
// docs/ write into the scratch directory's docs/). The
// certifications that split the box (quantise --certify, compare: seconds
// each under load), sweep, paper and allocate --target-agreement
// (minutes) run only with NNBOUND_LONG
// set, and so does the int8 allocation of the digits MLP (an int8
// allocation of sin3x stands in for it); the commands on the shared
// folder's data only with the folder.
func TestReadmeTwice(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	sharedRoot := shared.Root()
	if sharedRoot != "" {
		if sharedRoot, err = filepath.Abs(sharedRoot); err != nil {
			t.Fatal(err)
		}
	}
	var cmds []readmeCommand
	for _, c := range readmeCommands(t, root, sharedRoot) {
		slow := c.args[0] == "sweep" || c.args[0] == "paper" || c.args[0] == "compare" || slices.Contains(c.args, "--certify") ||
			slices.Contains(c.args, "--target-agreement")
		if slow && os.Getenv("NNBOUND_LONG") == "" {
			continue
		}
		if c.args[0] == "allocate" && slices.Contains(c.args, "int8") && os.Getenv("NNBOUND_LONG") == "" {
			// The digits MLP's int8 allocation solves an SDP at each
			// root (about 25 s of CPU a run at load 7); the same int8 search and
			// save on sin3x takes a fraction of a second.
			sin3x := filepath.Join(root, "nn", "onnx", "testdata", "torch", "sin3x_relu", "sin3x_relu.onnx")
			args := append([]string{"allocate", sin3x}, sin3xInt8.widths...)
			args = append(args, "--target-error", fmt.Sprint(sin3xInt8.target), "--starts", "1",
				"--max-pieces", sin3xInt8.pieces, "--timeout", "0", "--samples", "200", "--save", "sin3x-int8-mixed.onnx")
			c = readmeCommand{line: strings.Join(args, " "), args: args}
		}
		c.args = withoutTimeLimit(c.args)
		cmds = append(cmds, c)
	}
	if len(cmds) < 5 {
		t.Fatalf("found %d commands in the README and topic pages, want at least 5: has their layout changed?", len(cmds))
	}
	out1, files1 := runReadme(t, t.TempDir(), cmds)
	out2, files2 := runReadme(t, t.TempDir(), cmds)
	run := map[string]bool{} // a command run again on its --out resumes (vnncomp): its page shows a first run
	for i := range out1 {
		if !run[cmds[i].line] || !slices.Contains(cmds[i].args, "--out") {
			checkShown(t, cmds[i], out1[i], root)
		}
		run[cmds[i].line] = true
		if out1[i] != out2[i] {
			t.Errorf("the output differs between two runs:\n%s\n---\n%s", out1[i], out2[i])
		}
	}
	if len(files1) != len(files2) {
		t.Errorf("the runs wrote %d and %d files", len(files1), len(files2))
	}
	for p, b := range files1 {
		if !bytes.Equal(b, files2[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
	if len(files1) == 0 {
		t.Error("the commands wrote no files")
	}
}
