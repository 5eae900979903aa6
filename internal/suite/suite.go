// Package suite holds the benchmark suites of cmd/bench: for each suite
// its options, its instances (read through internal/benchdata or built
// here), the run that bounds, decides or solves them, the checks of every
// answer against what was attained, and the tables it prints. cmd/bench
// only binds the flags onto a suite's options and calls its run.
//
// A run writes its table to stdout and its progress to stderr; it returns
// a UsageError for options that make no sense, and ErrChecksFailed when it
// printed its table but some check of an answer failed.
package suite

import "errors"

// UsageError marks an error in the options, which a command reports as a
// usage error (exit code 2).
type UsageError struct{ Err error }

// Error returns the message of the error in the options.
func (e UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the error in the options.
func (e UsageError) Unwrap() error { return e.Err }

// ErrChecksFailed is returned by a run that printed its table but some
// check of an answer failed.
var ErrChecksFailed = errors.New("some checks failed")
