// Command bench measures nnbound's SDP solver against the C solvers people
// already use, and nnbound's bounds and verdicts against the peers' on
// their benchmarks. Each subcommand is a suite of internal/suite: the
// command binds its flags onto the suite's default options and runs it.
//
// Usage:
//
//	go run ./cmd/bench sdplib [flags] [FILE.dat-s ...]
//	go run ./cmd/bench acasxu [flags]   (ACAS Xu float16 against NeuroDiff; see its -h)
//	go run ./cmd/bench wide --suite har|mnist-global|mnist-3pix (HAR and MNIST float16 against NeuroDiff)
//	go run ./cmd/bench certify|cnn|verify|int8|controllers|defaults|rootsdp|graphs [flags]   (see -h)
//
// The sdplib benchmark solves each file (default: every .dat-s of the
// shared SDPLIB folder, ../shared/data/sdplib or $NNBOUND_SHARED/data/sdplib)
// with "nnbound solve" and with each of csdp, sdpa and dsdp5 that is
// installed, one process at a time and single-threaded (GOMAXPROCS=1 for
// nnbound; OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 for everyone). It
// measures end-to-end wall time, including reading the file, as the
// median of --runs runs (repeats only when the first run took less than
// 10 s, as the reference times were measured; runs are interleaved across
// solvers), and parses each solver's status and objective.
//
// nnbound's result is checked against the consensus optimum of
// optimal.tsv (see CHECKS below) and the command prints a Markdown table:
// problem, m, n, nnbound's status, objective (mean of primal and dual),
// relative error against the reference, the check, nnbound's time,
// csdp's time, the ratio nnbound/csdp and the other solvers' times;
// then the median and worst ratio. When csdp is not run, its time is
// taken from reference-times.tsv and marked with *. With --json the same
// data is printed as one JSON object.
//
// Progress goes to stderr, one line per problem.
//
// CHECKS: an infeasible problem must get the status of optimal.tsv
// (primal_infeasible or dual_infeasible). Otherwise the error is
// max(|pobj - ref|, |dobj - ref|) / max(1, |ref|) with ref the
// measured_consensus column, and
//
//   - ok:    status optimal and error <= 1e-6;
//   - ok~:   the problem is ill-posed (CSDP or SDPA did not solve it, or
//     another problem of its family, cleanly in reference-times.tsv),
//     status optimal or near_optimal and error <= 1e-4;
//   - ok?:   the reference itself is uncertain: status optimal or
//     near_optimal and error within that uncertainty (at least 1e-4).
//     Either the consensus comes from reference solvers more than 1e-4
//     apart (measured_spread_rel; hinf12), or there is no consensus at all
//     (hinf5-8, 10, 13-15). Then the reference is the range of the primal
//     and dual objectives of every run of reference-times.tsv that does
//     not claim an infeasibility; the error is how far nnbound's primal or
//     dual objective lies outside that range (0 inside), relative to
//     max(1, |midpoint|), and must be <= 1e-4. SDPLIB's own value is not
//     used there: it is printed to 2-4 digits, and hinf5's 363 and hinf6's
//     449.0 lie outside every reference solver's range. Only without such
//     runs is it used, within half a unit of its last printed digit;
//   - FAIL:  anything else.
//
// Exit status: 0 when every check passed, 1 otherwise or on an error,
// 2 for a usage error.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
