// Package vnncomp runs a benchmark in the conventions of VNN-COMP, the
// neural-network verification competition, for the two-network
// benchmarks of VNN-LIB 2.0 and the one-network ones of VNN-LIB 1: it
// reads the instances file,
// calls a Decider on each row, and writes VNN-COMP's result files, a
// JSON-lines log and a summary. It knows nothing of networks or of the
// method that decides an instance: the caller passes that in as a
// function, which makes the runner testable with a stub.
//
// # Instances
//
// An instances file (instances.csv) has one row per instance, without a
// header:
//
//	"[('f', 'onnx/A.onnx'), ('g', 'onnx/A_pruned.onnx')]",vnnlib/instance_0.vnnlib,100
//
// the networks as a Python list of (name, path) tuples, the VNN-LIB file
// and the time limit in seconds; paths are relative to the folder of the
// instances file. Row i is the i-th record (0-based). VNN-COMP's
// repositories store the files gzipped: a row naming A.onnx reads
// A.onnx.gz when A.onnx is missing, or when an unpacked A.onnx beside it
// differs (then with a warning: the .gz is taken to be the current one).
//
// # Results
//
// Each row that runs gets a result file in the result directory, named by
// ResultFile from the row index and the row's files, and written
// atomically (a temporary file renamed into place), so an interrupted run
// never leaves a partial one. Its first line is unsat, sat, timeout or
// unknown; for sat the counterexample follows in the textual assignment of
// VNN-LIB 2.0, every input and every output of both networks with full
// float64 precision:
//
//	sat
//	X_f float32 [2]
//	0.6000000238418579
//	-0.5
//	Y_f float32 [1]
//	...
//	X_g float32 [2]
//	...
//	Y_g float32 [1]
//	...
//
// (or ((X_0 v) ... (Y_0 v)) for VNN-LIB 1, see Syntax). A sat or unsat
// found after the row's time limit is written as timeout (Late): the
// runner measures the wall time of each call itself. A row that cannot
// run (malformed, a missing file) or whose decider fails is an error: it
// is logged and reported, gets the result file "error", and the other
// rows still run; a rerun runs it again.
//
// # Resuming and sharding
//
// A row whose result file exists is not run again, so rerunning the same
// command after an interruption, a crash or a cluster pre-emption resumes
// the benchmark; delete a result file to rerun its row. A Shard K/N runs
// the rows i with i mod N == K, so N processes, on one machine or on N
// nodes of a cluster sharing the result directory, split the rows between
// them with no coordination; ShardFromEnv reads K and N from Slurm array
// jobs and Kubernetes Indexed Jobs. docs/cluster.md shows both.
//
// # Log
//
// The log (LogFile) has one JSON object per row run, in row order:
//
//	{"index":3,"networks":[{"name":"f","path":"..."},...],"spec":"...","timeout_seconds":100,
//	 "result":"unsat","seconds":1.25,"result_file":"...","detail":{...}}
//
// with "error" for errors and the decider's Detail as "detail".
package vnncomp
