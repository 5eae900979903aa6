#!/bin/bash
# VNN-COMP: prepare an instance. Usage:
#   prepare_instance.sh v1 CATEGORY ONNX VNNLIB
# nnbound reads every instance afresh in run_instance.sh, so nothing is
# prepared; the script only checks its arguments.
set -euo pipefail
if [ "${1:-}" != "v1" ] || [ "$#" -ne 4 ]; then
	echo "prepare_instance.sh: usage: prepare_instance.sh v1 CATEGORY ONNX VNNLIB" >&2
	exit 1
fi
exit 0
