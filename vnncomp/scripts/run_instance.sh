#!/bin/bash
# VNN-COMP: run an instance. Usage:
#   run_instance.sh v1 CATEGORY ONNX VNNLIB RESULT TIMEOUT
# ONNX is the instances file's first field: one path, or for a
# two-network row the quoted list "[('f', 'onnx/a.onnx'), ('g', 'onnx/b.onnx')]".
# Writes RESULT: unsat, sat and the counterexample, timeout, unknown or
# error (nnbound vnncomp run-instance).
set -uo pipefail
if [ "${1:-}" != "v1" ] || [ "$#" -ne 6 ]; then
	echo "run_instance.sh: usage: run_instance.sh v1 CATEGORY ONNX VNNLIB RESULT TIMEOUT" >&2
	exit 1
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${NNBOUND:-$here/nnbound}"
"$bin" vnncomp run-instance "$3" "$4" "$5" "$6"
status=$?
if [ "$status" -ne 0 ] && [ ! -s "$5" ]; then
	echo error > "$5"
fi
exit 0
