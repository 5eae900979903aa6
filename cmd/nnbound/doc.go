// Command nnbound certifies how far a compressed neural network can drift
// from the original. For two feed-forward networks f1 and f2 (a model and
// its quantised or pruned copy, say) and a box of inputs, it proves an upper
// bound on
//
//	||f1(x1) - f2(x2)||_2   for every x1 in the box, x2 paired with x1,
//
// by the semidefinite program of Li, Drummond and Duncan, "Robust error
// bounds for quantised and pruned neural networks" (L4DC 2021), checks the
// solver's answer independently, and reports it next to the largest error
// it actually found, so that you can see how tight it is. compare also
// bounds the largest output difference max_k |f1_k(x1) - f2_k(x2)|
// (--norm inf) or one output's (--output K); the output says which.
//
// Usage:
//
//	nnbound <command> [arguments] [flags]
//
// Commands:
//
//	demo       certify the paper's example with no input files: a random
//	           1-10-10-1 ReLU network against its copy quantised to 2
//	           fractional bits; prints the certificate and writes a figure
//	compare    certify the output difference of two models, A and B
//	quantise   quantise a model (fixed point <IB,FB> or float16), save it,
//	           and with --certify bound the error
//	prune      prune hidden neurons or small weights, save, and certify
//	sweep      certified bound and observed error for each number of
//	           fractional bits; --target-error names the smallest that
//	           meets a target
//	allocate   fractional bits (or, with --scheme int8, int8 or int4
//	           weights) per layer for the fewest weight bits whose
//	           certified bound meets --target-error; saves the copy
//	verify     decide whether G stays within epsilon of F on the box:
//	           holds (proved by branch and bound), violated (with an input,
//	           evaluated again) or unknown (time or node limit); with
//	           --property top1, whether G picks F's class on the whole box
//	agree      over a test set, how many balls about the samples G is
//	           certified to classify as F does, how many hold a
//	           disagreement, how many are unknown, and both accuracies
//	vnncomp    run a VNN-COMP two-network benchmark (instances CSV, VNN-LIB
//	           2.0 properties), resumably, on one shard of its rows
//	export     write the certificate's SDP for other solvers (SDPA .dat-s
//	           for CSDP, SDPA, DSDP; CBF for MOSEK)
//	paper      rerun the paper's experiments: table1, table2, sweep, prune
//	inspect    describe a model file
//	eval       evaluate a model on one input
//	solve      solve an SDP in SDPA sparse format with nnbound's solver
//	version    print the version
//
// "nnbound help <command>" shows a command's flags with their defaults,
// which are the library's (certify.DefaultOptions and the like), so they
// never disagree with the code.
//
// The wall-clock limit of a command is --timeout (--time-budget and
// --time-limit are older names of it). It and every other length of time
// take a Go duration (90s, 1m30s, 500ms) or a bare number of seconds
// (--timeout 60 is a minute, --timeout 0.5 half a second); 0 is no limit.
//
// Models, VNN-LIB properties and SDPA files may be gzipped (a.onnx.gz, or
// any file starting with the gzip magic bytes). Naming a.onnx reads
// a.onnx.gz when a.onnx is missing, or when a.onnx differs from it (with
// a warning: the .gz is taken to be the current one).
//
// # Models
//
// Models are read from ONNX (.onnx: dense and convolutional layers with
// BatchNormalization, max and average pooling, residual Add and Sub,
// Concat, ReLU-type, sigmoid, tanh and clipping activations, the shape
// operators, int8 QDQ models with QuantizeLinear, DequantizeLinear and
// Cast as torch.onnx.export and onnxruntime write them, and the attention
// operators of small transformers; package nn/onnx lists them all, and an
// operator outside the list is an error naming the node), NNet (.nnet,
// the ACAS Xu format, in raw units with its clipping and normalisation,
// or --core for the normalised network), and nnbound's JSON (.json). The
// networks compared must have the same numbers of inputs and outputs;
// their hidden layers may differ.
//
// A model that is a computation graph rather than a chain of layers (a
// residual join, a concatenation, a max pool) is read by eval, inspect,
// compare, quantise, prune, sweep, verify (--epsilon or a VNN-LIB 2.0
// equivalence property) and vnncomp's equivalence rows, which certify it
// by bound propagation with input splitting (the SDP is built for chains);
// export, allocate, agree, verify --property top1 and vnncomp's other rows
// (relational, VNN-LIB 1) take chains of layers so far, and say so for a
// graph.
//
// # Input sets
//
// Every command that certifies takes the input box from these flags:
//
//	--box LO:HI       every input in [LO, HI] (default -1:1, the paper's)
//	--lo a,b,...      lower ends: one per input, or one for all
//	--hi c,d,...      upper ends: one per input, or one for all
//	--vnnlib FILE     the input constraints of a VNN-LIB property
//
// --lo and --hi override --box coordinate by coordinate. A VNN-LIB file
// may bound each X_i with <=, >=, <, > (read as closed) or =, the constant
// on either side, in chains such as (<= lo X_i hi) and under and; its
// assertions on the outputs Y_j are skipped, with a note. A disjunction over
// inputs, a bound that is not a constant, or an input without both bounds
// is an error naming the file and line.
//
// How the second network's input x2 relates to x1 is the pairing, the
// same default on every command: --pairing same (x2 = x1, the default),
// independent (x1 and x2 anywhere in the box, the paper's similarity
// problem) or quantised (x2 = q(x1), the input rounded to the copy's
// fractional bits: quantise's --frac-bits, sweep's FB, or for compare
// and export the fewest that hold the copy's weights; --input-frac-bits
// sets them).
//
// # Certification
//
// These flags tune every certification:
//
//	--qc default|paper    the quadratic constraints: nnbound's set (bounds
//	                      from interval and symbolic propagation, stable
//	                      neurons made exact, local constraints; faster
//	                      and tighter), or exactly the authors'
//	--weights MODE        objective weights of the gammas: worst-case
//	                      (minimise the bound over the box), unit, paper
//	--samples N           random inputs tried for the observed error
//	--seed S              seed of that sampling
//	--max-pieces N        bound at most N pieces, each by its SDP or by
//	                      bound propagation (graphs: no SDP): the whole
//	                      box, then both halves of every split (0: no cap)
//	--timeout D           stop splitting after D (0: no limit, so that the
//	                      result does not depend on the machine's speed;
//	                      demo and paper use 0 unless told otherwise);
//	                      --time-budget is another name
//	-v, --verbose         the SDP solver's iteration log and where the time went on stderr
//
// A certificate holds gammas with
//
//	||f1(x1) - f2(x2)||^2 <= gamma + gamma_x1 ||x1||^2 + gamma_x2 ||x2||^2 + gamma_x ||x1 - x2||^2
//
// for every input pair, and the bound: the square root of the largest
// right-hand side over the box, or the largest bound over the pieces when
// splitting did better. It is "certified" only when an independent check
// of the solver's answer, in floating point with rounding accounted for,
// proves the matrix inequality; otherwise the status says why and no
// bound is claimed.
//
// The bound holds for the networks in real arithmetic (and their float64
// evaluation, within the check's rounding): "arithmetic real arithmetic
// (float64-checked)". compare, quantise and prune --certify and sweep
// take --arith float32 for a bound that also covers any float32 evaluation of both networks,
// the input rounded to float32 and every operation rounded in any order
// of summation, as onnxruntime and torch run them on a CPU; it comes from
// bound propagation through the graphs, for chains too (no SDP).
//
// # Output
//
// Results go to stdout as aligned text, or as one JSON object with --json
// (the schema is in docs/json.md); notes and errors go to stderr, one line
// each. --plot FILE (.png or .svg) draws a figure: for one input, the
// error and the bound against the input on a log scale with the
// quantisation steps marked (the bound at an input is the smallest of the
// bound over the box, the piece's and the right-hand sides of the
// certificate's gammas and of the SDP's own, which JSON lists as
// sdp_gammas and which still hold when bound propagation gave the bound,
// and of bound propagation on the input's quantisation cell (up to 256
// cells), or on its slice of 128 equal slices otherwise: the figure
// bounds every one of those sub-boxes itself, so that it does not depend
// on the machine's speed, and the certificate's numbers do not use them);
// for two (or one input with
// x1, x2 independent), the tightness T = ln(bound^2) - ln(error^2) as a heat map;
// for more, a histogram of bound / error over sampled inputs. When stderr
// is a terminal, sweep, allocate, paper and agree show a progress bar, and a certification
// running longer than two seconds (demo, compare, quantise and prune
// --certify) and verify a status line (the SDPs certified or the boxes
// bounded, the bound so far, the largest error found) and the time;
// --progress draws them off a terminal too, as whole lines every two
// seconds, and --quiet turns them off. Every file
// is written to a temporary name and renamed into place, so an
// interrupted run leaves no half-written file.
//
// A flag name means one thing on every command: --output K is an output
// index (compare, verify); --save FILE (-o for export) names a file the
// command writes (a model, export's SDP), --plot FILE a figure, --out DIR
// and --report DIR directories; sweep and allocate take lists where the
// others take one value (--frac-bits, --bits, --neurons, --sparsity).
// export's -o was once --output FILE; that name still works, with a note.
// An output file's or directory's place is checked before any work: a
// missing or unwritable directory is a usage error.
//
// # Exit status
//
// 0 when the command succeeded (for certifying commands: the bound is
// certified; for sweep with --target-error and allocate: some bit width meets it; for
// verify: holds; for agree: every ball agrees), 1 when a bound could not be certified, verify's answer
// is violated or unknown, or an error occurred (the output says which), 2 for a usage
// error (unknown flag, bad flag value, wrong number of arguments), 130
// when SIGINT or SIGTERM stopped it: every command then stops its solver,
// prints what it had finished (sweep's rows so far, allocate's best
// allocation certified so far, the certificate with
// the best bound so far, paper's table of the runs finished), writes no
// partial file and says "cancelled" on stderr; a second signal ends it at
// once. A bug is reported as one "internal error" line; set
// NNBOUND_TRACEBACK=1 to see its stack.
//
// # Examples
//
//	nnbound demo
//	nnbound compare model.onnx model-q8.onnx --pairing same --plot error.png
//	nnbound quantise model.onnx --frac-bits 8 --save model-q8.onnx --certify
//	nnbound sweep model.onnx --frac-bits 2:12 --target-error 0.01
//	nnbound allocate model.onnx --target-error 0.01 --save model-mixed.onnx
//	nnbound compare a.onnx b.onnx --vnnlib prop.vnnlib --json
//	nnbound verify f.onnx g.onnx --epsilon 0.05 --lo 0,0 --hi 1,1
//	nnbound verify f.onnx g.onnx --vnnlib equivalence.vnnlib --json
//	nnbound verify f.onnx g-int8.onnx --property top1 --box 0:1
//	nnbound agree f.onnx g-int8.onnx --data test_set.json --radius 2/255
//	nnbound vnncomp instances.csv --out results --shard 0/4
//	nnbound export model.onnx --frac-bits 4 -o problem.dat-s
//	nnbound paper table1 --runs 100 --out results
package main
