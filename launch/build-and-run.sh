#!/usr/bin/env bash
# Quick start 1: install what the build needs, build evbench (only it: not the tests), run the
# default event-building run (local transport). build/ is configured as build-and-test.sh
# configures it, so the test command compiles only the tests after it.
# Extra arguments go to evbench, e.g. `bash launch/build-and-run.sh --protocol push`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash launch/setup-debian.sh build
# shellcheck source=configure-build.sh
source launch/configure-build.sh
cmake --build build --target evbench
exec ./build/evbench "$@"
