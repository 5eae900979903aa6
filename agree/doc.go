// Package agree runs a top-1 agreement question over a test set: for
// each sample x, do a network f and its compressed copy g pick the same
// class at every input of a ball about x? It reads the test set, calls a
// Decider on each sample, logs one JSON line per sample and sums up:
// how many balls are certified to agree, how many hold a disagreement
// (with the input), how many are unknown, and the clean accuracy of both
// networks on the samples themselves. Like package vnncomp it knows
// nothing of networks or of the method: the caller passes the decision
// in as a function (the command nnbound agree passes verify.DecideTop1).
//
// # Test sets
//
// Read takes the format from the file name:
//
//	.json  {"inputs": [[...], ...], "labels": [...]}: one array per
//	       sample, nested arrays (an image's channels, rows, columns)
//	       flattened row-major; "labels" optional
//	.csv   one sample a row; a first row that is not all numbers is a
//	       header, and its column named "label" holds the labels
//	.npy   a NumPy array of shape (N, ...) in C order (float32, float64,
//	       int32, int64, uint8, int8 or bool), one sample per first index;
//	       labels from a second file, .npy of shape (N,) or text with one
//	       integer a line
//
// Values are taken as they are: scale images to the networks' input
// range before (the digits test set of nn/onnx/testdata holds pixels/16).
//
// # Log, resuming and sharding
//
// Run appends one Record per sample to the log of its shard
// (vnncomp.LogFile: log.jsonl, or log-K-of-N.jsonl for shard K/N) in the
// result folder, in sample order whatever the scheduling, each line with
// a single write. It first reads every log in the folder, so a rerun
// skips the samples already decided, by any shard (an Error record is
// tried again), and a run with shard 0/1 after the shards of a cluster
// job sums up the whole set. Each line names the question; a folder
// holding another question's lines is an error.
package agree
