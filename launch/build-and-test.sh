#!/usr/bin/env bash
# Quick start 2, the test command: installs the packages, builds Release with warnings as errors
# and runs the unit and integration tiers (README, "Tests").
#   bash launch/build-and-test.sh         unit + integration
#   bash launch/build-and-test.sh --all   then the system tier in the same build, the ASan + UBSan
#                                         build's unit and integration tiers, and the fuzzers (CI)
# Each stage prints its start; the end prints each stage's minutes and the 20 slowest tests.
# A compiler cache serves repeated builds on the same machine (launch/configure-build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
all=false
case "${1:-}" in
  "") ;;
  --all) all=true ;;
  *) echo "build-and-test.sh: unknown argument '$1' (give nothing, or --all)" >&2; exit 2 ;;
esac
jobs=4   # ctest: tests that only wait run beside each other; tests/tiers.cmake says which need the CPU
began=$SECONDS stage_name="" stage_began=$SECONDS stages=()
minutes() { awk -v s="$1" 'BEGIN { printf "%5.1f", s / 60 }'; }
stage() {
  [ -n "$stage_name" ] && stages+=("$(printf '%-48s %s' "$stage_name" "$(minutes $((SECONDS - stage_began)))")")
  stage_name=$1 stage_began=$SECONDS
  [ "$1" = done ] || printf '== build-and-test: %s (%d min in)\n' "$1" $(((SECONDS - began) / 60))
}
junit=()
run_tier() {   # run_tier BUILD_DIR LABELS NAME [CTEST ARGUMENTS]
  local xml dir=$1 labels=$2
  xml="$(realpath "$1")/Testing/$3.xml"
  shift 3
  junit+=("$xml")
  (cd "$dir" && ctest -j"$jobs" -L "$labels" --output-on-failure --output-junit "$xml" "$@")
}
report() {
  stage done
  echo "== build-and-test: minutes per stage"
  printf '%s\n' "${stages[@]}"
  printf '%-48s %s\n' "all" "$(minutes $((SECONDS - began)))"
  if [ ${#junit[@]} -gt 0 ]; then python3 tests/slowest_tests.py 20 "${junit[@]}"; fi
}
trap 'status=$?; [ $status -ne 0 ] && report; exit $status' EXIT

stage "packages"
bash launch/setup-debian.sh
# Release, as the first quick-start command builds it: the tests check the build users run (and
# its -O3 warnings), and the two commands share build/ and its configuration.
stage "build/ (Release): evbench, unit, integration"
# shellcheck source=configure-build.sh
source launch/configure-build.sh
cmake --build build --target evbench evbench_unit_tests evbench_integration_tests
stage "unit + integration tiers in build/"
run_tier build 'unit|integration' release-unit-integration

if $all; then
  stage "build/: system"
  cmake --build build
  stage "system tier in build/"
  run_tier build system release-system

  # clang, -O1 -g1 (line tables, all a sanitizer report's stack needs): GCC took 1.7 times as long
  # for this build, -O2 -g twice as long again. A second compiler's warnings, as errors, come with it.
  # Only what its tiers run: evbench and the unit and integration binaries. The fuzz targets
  # share this build (-DEVB_FUZZ=ON adds libFuzzer's coverage hooks): one compile, not two.
  # A unity build (CMake joins a target's sources, eight to a file) parses the heavy headers
  # (nlohmann/json, gtest, CLI11) once per eight files. Only here: build/ compiles every file
  # alone, so a file that lacks an include of its own still fails there.
  stage "build-asan/ (ASan + UBSan, clang, unity)"
  cmake -S . -B build-asan -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DEVB_WERROR=ON -DEVB_SANITIZE=ON -DEVB_FUZZ=ON \
        -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 >/dev/null
  cmake --build build-asan --target evbench evbench_unit_tests evbench_integration_tests
  stage "unit + integration tiers in build-asan/"
  # shellcheck source=../tests/sanitizers/env.sh
  source tests/sanitizers/env.sh
  # Not the documented commands (DocCommands.*): they check what the pages say, in build/; the
  # code they run is what the other tests run here under the sanitizers. Nor the checks of the
  # sources, links, layout and tables (Layering, DocLinks, Style, Tiers, PeerOutput), which no sanitizer sees into.
  run_tier build-asan 'unit|integration' asan-unit-integration -E '^(DocCommands|DocLinks|Layering|Style|Tiers|PeerOutput)\.'

  # libFuzzer on every parser of user files and values (tests/fuzz), 20 s each, seeded with real
  # dumps: a crash, a sanitizer report or a refusal other than evbench's own fails.
  stage "fuzzers (in build-asan/)"
  bash tests/fuzz/run.sh 20 build-asan
fi
report
trap - EXIT
