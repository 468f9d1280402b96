#!/usr/bin/env bash
# Quick start 1: install packages, build evbench (only it: not the tests), run the default
# event-building run (local transport).
# Extra arguments go to evbench, e.g. `bash launch/build-and-run.sh --protocol push`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash launch/setup-debian.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target evbench
exec ./build/evbench "$@"
