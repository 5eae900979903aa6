package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// shellWords splits a command line as a shell does for the simple lines
// of the examples: on spaces, with '...' and "..." quoting; the words
// after a pipe are dropped.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	quote, inWord := rune(0), false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '|':
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestHelpExamples checks every example of every command's -h: the
// command exists, its flags parse, it has the arguments the command
// takes, and the repository files it names exist. Those of eval and
// inspect on repository files are run.
func TestHelpExamples(t *testing.T) {
	root := filepath.Join("..", "..")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c.HasParent() && c.Name() != "help" && c.Name() != "version" && c.Parent().Name() != "completion" {
			if c.Example == "" {
				t.Errorf("%s -h shows no example", c.CommandPath())
			}
		}
		for _, line := range strings.Split(c.Example, "\n") {
			args := shellWords(strings.TrimSpace(line))
			if len(args) == 0 {
				continue
			}
			if args[0] != "nnbound" {
				t.Errorf("%s: example %q does not start with nnbound", c.CommandPath(), line)
				continue
			}
			cmd, rest, err := newRootCmd(io.Discard, io.Discard).Find(args[1:])
			if err != nil || cmd.CommandPath() != c.CommandPath() {
				t.Errorf("%s: example %q runs %v (%v)", c.CommandPath(), line, cmd.CommandPath(), err)
				continue
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
				continue
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
			}
			repo := true
			for _, a := range cmd.Flags().Args() {
				for _, dir := range []string{"testdata/", "nn/", "docs/"} {
					if strings.HasPrefix(a, dir) {
						if _, err := os.Stat(filepath.Join(root, a)); err != nil {
							t.Errorf("%s: example %q names %s, which the repository does not hold", c.CommandPath(), line, a)
						}
					}
				}
				repo = repo && strings.Contains(a, "/")
			}
			if repo && (c.Name() == "eval" || c.Name() == "inspect") {
				var stdout, stderr bytes.Buffer
				for i, a := range args {
					if strings.Contains(a, "/") {
						args[i] = filepath.Join(root, a)
					}
				}
				if code := run(args[1:], &stdout, &stderr); code != 0 {
					t.Errorf("%s: exit %d: %s", line, code, stderr.String())
				}
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
}
