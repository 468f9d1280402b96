# Sourced by every benchmark, from the repository's root. Sets:
#   EVB     the evbench binary, an absolute path: build-bench/evbench, built here (Release, after
#           the packages are installed), or that of the build directory EVB_BENCH_BUILD names
#           (the system tier's smoke runs give build/);
#   MEMCPY  bench/memcpy_bandwidth of the same build directory;
#   SMOKE   and smoke(), from bench/smoke.sh (EVB_BENCH_SMOKE=1: one short point of every kind);
#   OUT     where results go: bench/results, or bench/results/smoke in smoke mode;
# and the helpers listening, peer and fi_pingpong_pair below.
source bench/smoke.sh
if [ -n "${EVB_BENCH_BUILD:-}" ]; then
  bench_build=$EVB_BENCH_BUILD
else
  bash launch/setup-debian.sh >/dev/null
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEVB_BUILD_TESTS=OFF >/dev/null
  cmake --build build-bench >/dev/null
  bench_build=build-bench
fi
for binary in evbench bench/memcpy_bandwidth; do
  [ -x "$bench_build/$binary" ] || { echo "$(basename "$0"): no $bench_build/$binary (EVB_BENCH_BUILD names a build directory)" >&2; exit 2; }
done
EVB=$(realpath "$bench_build/evbench")
MEMCPY=$(realpath "$bench_build/bench/memcpy_bandwidth")
OUT=bench/results$(smoke "" /smoke)
mkdir -p "$OUT"
# listening PORT: waits until a TCP socket listens on PORT here (a peer tool's server started in
# the background), at most 10 s, so that its client never starts before it under load.
listening() {
  local tries=0
  until ss -ltnH "sport = :$1" | grep -q .; do
    tries=$((tries + 1))
    [ $tries -le 200 ] || { echo "$(basename "$0"): no server listens on port $1 after 10 s" >&2; return 1; }
    sleep 0.05
  done
}
# peer TOOL FILE: the figure a peer tool printed (its output or JSON in FILE), in Gb/s.
peer() { python3 bench/peer_output.py "$@"; }
# fi_pingpong_pair PROVIDER PORT ITERATIONS OUT [BEFORE [DURING]]: fi_pingpong's server and client
# over libfabric's PROVIDER on this host, SIZE bytes a message, for at most T + 30 s; the client's
# output in OUT. Under load its connection fails now and then (cq_readerr: Transport endpoint is
# not connected): the pair runs again, three times at most, until OUT holds a figure. BEFORE runs
# before each try, DURING once the client has started (peer_gap_bench's profile).
fi_pingpong_pair() {
  local provider=$1 port=$2 iters=$3 out=$4 before=${5:-:} during=${6:-:} try s c
  for try in 1 2 3; do
    $before
    timeout $((T + 30)) fi_pingpong -e rdm -p "$provider" -S "$SIZE" -I "$iters" -B "$port" >/dev/null 2>&1 & s=$!
    listening "$port"
    timeout $((T + 30)) fi_pingpong -e rdm -p "$provider" -S "$SIZE" -I "$iters" -P "$port" 127.0.0.1 >"$out" 2>&1 & c=$!
    $during
    wait $c || true
    wait $s || true
    peer fi_pingpong "$out" >/dev/null 2>&1 && return 0
    echo "fi_pingpong on $provider, try $try: $(head -c 200 "$out")" >&2
  done
}
