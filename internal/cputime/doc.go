// Package cputime reads the CPU time the process has used, which runs
// report beside their wall time: on a machine shared with other work the
// wall time counts the waits for a core.
package cputime
