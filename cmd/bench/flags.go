package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/verify"
)

// enumValue is a pflag.Value setting *p to the one of values whose String
// is the flag's argument.
type enumValue[T fmt.Stringer] struct {
	p      *T
	values []T
}

// String returns the current value's name.
func (v enumValue[T]) String() string {
	if v.p == nil {
		return ""
	}
	return (*v.p).String()
}

// Set chooses the value named s.
func (v enumValue[T]) Set(s string) error {
	names := make([]string, len(v.values))
	for i, x := range v.values {
		if x.String() == s {
			*v.p = x
			return nil
		}
		names[i] = x.String()
	}
	return fmt.Errorf("want %s", strings.Join(names, ", "))
}

// Type names the flag's value in -h.
func (v enumValue[T]) Type() string { return "string" }

// enumVar defines the flag name of fs choosing *p among values, with *p
// as its default.
func enumVar[T fmt.Stringer](fs *pflag.FlagSet, p *T, name string, values []T, usage string) {
	fs.Var(enumValue[T]{p, values}, name, usage)
}

// boundsMethods are the values of the --bounds flags.
var boundsMethods = []bounds.Method{bounds.MethodInterval, bounds.MethodSymbolic, bounds.MethodOptimised}

// splitRules are the values of bench verify's --split.
var splitRules = []verify.SplitRule{verify.SplitGradient, verify.SplitInterval, verify.SplitDifference}
