package main

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/quantise"
)

// TestHelpDefaults checks that the defaults -h prints are those the code
// uses: the library's DefaultOptions, and no time budget for the
// commands whose output must be reproducible (demo, paper).
func TestHelpDefaults(t *testing.T) {
	c := certjob.Default()
	q := quantise.DefaultOptions()
	cert := map[string]string{
		"samples":      fmt.Sprint(c.Samples),
		"seed":         fmt.Sprint(c.Seed),
		"max-pieces":   fmt.Sprint(c.Refine.MaxPieces),
		"target-ratio": fmt.Sprint(c.Refine.TargetRatio),
		"timeout":      c.Refine.TimeBudget.String(),
		"qc":           c.QC.String(),
		"weights":      c.Weights.String(),
	}
	want := map[string]map[string]string{
		"compare":  {"method": c.Method.String(), "norm": c.Norm.String(), "input-frac-bits": "0"},
		"sweep":    {"rounding": q.Weights.Rounding.String()},
		"export":   {},
		"quantise": {"frac-bits": fmt.Sprint(q.Weights.FracBits), "int-bits": fmt.Sprint(q.Weights.IntBits), "rounding": q.Weights.Rounding.String()},
		"prune":    {"neurons": "0", "sparsity": "0"}, // one must be given: no default shown
		"demo":     {"timeout": "0s"},
		"paper":    {"timeout": "0s"},
	}
	root := newRootCmd(io.Discard, io.Discard)
	for name, flags := range want {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		for flag, def := range cert {
			if _, ok := flags[flag]; !ok {
				flags[flag] = def
			}
		}
		for flag, def := range flags {
			f := cmd.Flags().Lookup(flag)
			if f == nil {
				t.Errorf("%s has no --%s", name, flag)
				continue
			}
			if f.DefValue != def {
				t.Errorf("%s -h: --%s default %q, the code's is %q", name, flag, f.DefValue, def)
			}
		}
	}
}

// TestSubcommandTree checks that the tree built for one subcommand (see
// newRootCmd) answers as the whole tree does: the same help, and the same
// usage error for a flag it does not have; and that every entry of
// subcommands builds the command of its name.
func TestSubcommandTree(t *testing.T) {
	execute := func(root *cobra.Command, args []string) string {
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		err := root.Execute()
		return fmt.Sprintf("%s\nerror: %v", out.String(), err)
	}
	for _, sc := range subcommands {
		if got := sc.build().Name(); got != sc.name {
			t.Errorf("subcommands: entry %q builds %q", sc.name, got)
		}
		for _, args := range [][]string{{sc.name, "--help"}, {sc.name, "--no-such-flag"}} {
			whole := execute(newRootCmd(io.Discard, io.Discard), args)
			one := execute(newRootCmd(io.Discard, io.Discard, args...), args)
			if one != whole {
				t.Errorf("%v: the tree of one subcommand answers\n%s\nthe whole tree\n%s", args, one, whole)
			}
		}
	}
}

// TestDefaultTimeouts checks that every long-running command stops by
// itself unless told not to: -h prints a default --timeout that is not 0.
// demo and paper are small and fixed, and keep 0 for reproducible output;
// vnncomp takes each row's limit from the instances file.
func TestDefaultTimeouts(t *testing.T) {
	want := map[string]string{
		"verify":   verifyTimeout.String(),
		"solve":    solveTimeout.String(),
		"compare":  certjob.Default().Refine.TimeBudget.String(),
		"quantise": certjob.Default().Refine.TimeBudget.String(),
		"prune":    certjob.Default().Refine.TimeBudget.String(),
		"sweep":    certjob.Default().Refine.TimeBudget.String(),
	}
	root := newRootCmd(io.Discard, io.Discard)
	for name, def := range want {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		f := cmd.Flags().Lookup("timeout")
		if f == nil || f.DefValue != def || def == "0s" {
			t.Errorf("%s: --timeout %+v, want default %s", name, f, def)
		}
	}
}
