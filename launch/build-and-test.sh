#!/usr/bin/env bash
# Quick start 2: install packages, build with warnings as errors, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash launch/setup-debian.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVB_WERROR=ON >/dev/null
cmake --build build
cd build
ctest -j"$(nproc)" --output-on-failure --timeout 600
