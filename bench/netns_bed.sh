# Sourced by the benchmarks on the cluster in a box (bench/netns_*.sh), after bench/build_bench.sh:
#   bed              tests/netns/cluster.sh
#   bed_up FABRIC    brings FABRIC up (whatever fabric was up goes down first) and down at exit
#   bed_mpirun ARGS  mpirun on h1, one rank per host of h1..h4 (BED_HOSTS=N: of h1..hN), through the
#                    namespaces' launch agent
#   bed_iperf3_ring SECONDS NAME
#                    iperf3 in a ring of h1..h4, each host sending one stream to the next, all at
#                    once: prints the mean receiver's Gb/s (the JSON in $OUT/NAME_<i>.json)
bed=tests/netns/cluster.sh
bed_up() {
  trap '$bed down >/dev/null 2>&1 || true' EXIT
  $bed down >/dev/null 2>&1 || true
  $bed up "$1" >/dev/null
}
bed_mpirun() {
  local n=${BED_HOSTS:-4} hosts=h1 i
  for ((i = 2; i <= n; i++)); do hosts+=",h$i"; done
  $bed exec h1 mpirun --allow-run-as-root --mca plm_rsh_agent "$PWD/tests/netns/rsh.sh" -H "$hosts" -np "$n" "$@"
}
bed_iperf3_ring() {
  local t=$1 name=$2 i next pids=() hosts=(h1 h2 h3 h4)
  for i in 0 1 2 3; do $bed exec "${hosts[$i]}" iperf3 -s -1 -D -p 5401 >/dev/null; done
  sleep 0.5
  for i in 0 1 2 3; do
    next=${hosts[$(((i + 1) % 4))]}
    $bed exec "${hosts[$i]}" iperf3 -c "$next" -p 5401 -t "$t" -J >"$OUT/${name}_$i.json" & pids+=($!)
  done
  wait "${pids[@]}"
  python3 -c "
import sys; sys.path.insert(0, 'bench'); import peer_output
print(sum(peer_output.iperf3(open('$OUT/${name}_%d.json' % i).read()) for i in range(4)) / 4)"
}
