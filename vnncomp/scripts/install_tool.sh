#!/bin/bash
# VNN-COMP: install nnbound. Usage: install_tool.sh v1
# Builds the nnbound binary beside this script with the Go toolchain.
set -euo pipefail
if [ "${1:-}" != "v1" ]; then
	echo "install_tool.sh: expected API version v1, got '${1:-}'" >&2
	exit 1
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
go build -o "$here/nnbound" ./cmd/nnbound
"$here/nnbound" version
