#!/usr/bin/env bash
# Quick start 2: install packages, build with warnings as errors, run every test; then the same
# suite built with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/, which must be
# clean too (tests/sanitizers/env.sh: any report fails the test).
set -euo pipefail
cd "$(dirname "$0")/.."
bash launch/setup-debian.sh
# Release, as the first quick-start command builds it: the tests check the build users run (and
# its -O3 warnings), and the two commands share build/ without reconfiguring it.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEVB_WERROR=ON >/dev/null
cmake --build build
(cd build && ctest -j"$(nproc)" --output-on-failure --timeout 600)
# The profile-guided build for long simulations (launch/build-profile-guided.sh, trained briefly
# here) must predict what this build predicts, bit for bit: the comparison exits non-zero otherwise.
bash launch/build-profile-guided.sh build-pgo 5ms >/dev/null
bash bench/sim_speed_side_by_side.sh build/evbench build-pgo/evbench 2ms 1

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVB_WERROR=ON -DEVB_SANITIZE=ON >/dev/null
cmake --build build-asan
cd build-asan
# shellcheck source=../tests/sanitizers/env.sh
source ../tests/sanitizers/env.sh
ctest -j"$(nproc)" --output-on-failure --timeout 900 -E "$mpi_tests"
ASAN_OPTIONS=$mpi_asan_options ctest -j"$(nproc)" --output-on-failure --timeout 900 -R "$mpi_tests"

# libFuzzer on every parser of user files and values (tests/fuzz), 20 s each, seeded with real
# dumps: a crash, a sanitizer report or a refusal other than evbench's own fails.
cd ..
bash tests/fuzz/run.sh 20 build/evbench
