#!/usr/bin/env bash
# Quick start 2: install packages, build with warnings as errors, run every test; then the same
# suite built with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/, which must be
# clean too (tests/sanitizers/env.sh: any report fails the test). Each stage prints its start and
# the minutes since the command began: CI allows 90 minutes for all of it (README, Quick start).
set -euo pipefail
cd "$(dirname "$0")/.."
began=$SECONDS
stage() { printf '== build-and-test: %s (%d min in)\n' "$1" $(((SECONDS - began) / 60)); }

stage "packages"
bash launch/setup-debian.sh
# Release, as the first quick-start command builds it: the tests check the build users run (and
# its -O3 warnings), and the two commands share build/ without reconfiguring it.
stage "build/ (Release)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEVB_WERROR=ON >/dev/null
cmake --build build
stage "tests in build/"
(cd build && ctest -j"$(nproc)" --output-on-failure --timeout 600)
# The profile-guided build for long simulations (launch/build-profile-guided.sh, trained briefly
# here) must predict what this build predicts, bit for bit: the comparison exits non-zero otherwise.
stage "build-pgo/ (profile-guided) against build/"
bash launch/build-profile-guided.sh build-pgo 5ms >/dev/null
bash bench/sim_speed_side_by_side.sh build/evbench build-pgo/evbench 2ms 1

# -O1 -g1 (line tables, all a sanitizer report's stack needs): half the compile time of -O2 -g,
# which had made this build the longest stage (README, Quick start).
stage "build-asan/ (ASan + UBSan)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
      -DEVB_WERROR=ON -DEVB_SANITIZE=ON >/dev/null
cmake --build build-asan
stage "tests in build-asan/"
cd build-asan
# shellcheck source=../tests/sanitizers/env.sh
source ../tests/sanitizers/env.sh
ctest -j"$(nproc)" --output-on-failure --timeout 900 -E "$mpi_tests|$not_sanitized"
ASAN_OPTIONS=$mpi_asan_options ctest -j"$(nproc)" --output-on-failure --timeout 900 -R "$mpi_tests"

# libFuzzer on every parser of user files and values (tests/fuzz), 20 s each, seeded with real
# dumps: a crash, a sanitizer report or a refusal other than evbench's own fails.
cd ..
stage "fuzzers"
bash tests/fuzz/run.sh 20 build/evbench
stage "done"
