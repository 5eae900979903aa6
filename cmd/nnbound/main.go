// Command nnbound certifies how far a compressed neural network can drift
// from the original: for two feed-forward networks and an input box it
// proves an upper bound on ||f1(x1) - f2(x2)|| for every input in the box,
// by a semidefinite program built from quadratic constraints (Li, Drummond,
// Duncan, "Robust error bounds for quantised and pruned neural networks",
// L4DC 2021).
//
// Usage:
//
//	nnbound <command> [flags] [arguments]
//
// Run "nnbound help <command>" for the flags of a command.
//
// Exit status: 0 when the command succeeded (for certifying commands: the
// bound is certified), 1 when a bound could not be certified or an error
// occurred, 2 for a usage error (unknown flag, bad flag value, wrong
// number of arguments).
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
