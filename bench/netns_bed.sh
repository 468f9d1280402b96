# Sourced by the benchmarks on the cluster in a box (bench/netns_*.sh), after bench/build_bench.sh:
#   bed              tests/netns/cluster.sh
#   bed_up FABRIC    brings FABRIC up (whatever fabric was up goes down first) and down at exit
#   bed_mpirun ARGS  mpirun on h1, one rank per host of h1..h4 (BED_HOSTS=N: of h1..hN), through the
#                    namespaces' launch agent
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
