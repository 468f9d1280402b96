#!/usr/bin/env bash
# Builds the fuzz targets with clang, seeds them with real inputs (dumps that `evbench fabric`
# writes in the tools' formats, a histogram, a config file, quantities; the wire fuzzers record a
# real in-process run's traffic themselves) and runs each for SECONDS (default 20). A crash, a
# sanitizer report or an exception other than evbench's own refusal fails; the input that did it
# is kept in BUILD_DIR/findings/ and becomes a test.
#   tests/fuzz/run.sh [SECONDS] [BUILD_DIR]
# BUILD_DIR (default build-fuzz) is configured here with -DEVB_FUZZ=ON unless it already is:
# the full check passes the sanitizer build, build-asan/, which it configures so.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
dir=${2:-build-fuzz}
if ! grep -q '^EVB_FUZZ:BOOL=ON' "$dir/CMakeCache.txt" 2>/dev/null; then
  # -O1 -g1, as the sanitizer build (launch/build-and-test.sh): line tables are all a report needs.
  cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DEVB_FUZZ=ON -DEVB_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$dir" --target evb_fuzzers evbench
# shellcheck source=../sanitizers/env.sh
source tests/sanitizers/env.sh
evbench=$dir/evbench
seeds=$dir/seeds
wire="tcp_frames control_frames unit_commands"   # they record their seeds from a real run
rm -rf "$seeds" && mkdir -p "$seeds"/{ibnetdiscover,lft_dump,host_latency,quantity,config_file,tcp_frames,control_frames,unit_commands} "$dir"/findings
"$evbench" fabric --k 2 --write-topology "$seeds/ibnetdiscover/k2.net" --write-lfts "$seeds/lft_dump/k2.lfts" >/dev/null
"$evbench" fabric --k 2 --swap 0:3 --routing minhop --write-topology "$seeds/ibnetdiscover/k2-swapped.net" >/dev/null
printf '0.9us 2\n1us 5\n1.4us 1\n' >"$seeds/host_latency/hist.txt"
printf '1MiB' >"$seeds/quantity/size"; printf '170ns' >"$seeds/quantity/time"; printf '100Gbps' >"$seeds/quantity/rate"
printf 'credits = 4\nparallel = 2\nprotocol = "push"\nfragment-size = "512KB"\nru-scale = [1, 0.5, 1, 1]\nquiet = true\n' >"$seeds/config_file/run.toml"
for target in $wire; do
  EVB_FUZZ_SEEDS="$seeds/$target" "$dir"/tests/fuzz/fuzz_$target
done
# One target: its findings, if any, in $dir/findings/; prints one line.
fuzz_one() {
  local target=$1 corpus=$dir/corpus/$1
  mkdir -p "$corpus"
  if "$dir"/tests/fuzz/fuzz_$target -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=0 \
       -artifact_prefix="$dir/findings/$target-" "$corpus" "$seeds/$target" >"$dir/fuzz_$target.log" 2>&1; then
    echo "fuzz_$target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$dir/fuzz_$target.log" | tail -1), nothing found"
  else
    echo "fuzz_$target: FOUND something: $(ls $dir/findings/$target-* 2>/dev/null | head -1)"
    grep -E "ERROR|SUMMARY|terminate|what\(\)" "$dir/fuzz_$target.log" | head -5
    return 1
  fi
}
# Two at a time: libFuzzer runs one thread, the machine has two cores.
status=0 running=0
for target in ibnetdiscover lft_dump host_latency quantity config_file $wire; do
  fuzz_one "$target" &
  running=$((running + 1))
  if [ $running -ge 2 ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
done
while [ $running -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
