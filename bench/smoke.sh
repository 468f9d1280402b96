# Sourced by every benchmark (bench/build_bench.sh sources it too). Sets SMOKE: true under
# EVB_BENCH_SMOKE=1, when each benchmark runs one short point of every kind it has, through every
# parser of its peer tools' output, so that a benchmark cannot rot (tests BenchSmoke.*, system
# tier); its figures then mean nothing.
# smoke FULL SHORT prints FULL, or SHORT in smoke mode: T=${1:-$(smoke 5 1)}.
SMOKE=false
case "${EVB_BENCH_SMOKE:-}" in
  "" | 0) ;;
  1) SMOKE=true ;;
  *) echo "$(basename "$0"): EVB_BENCH_SMOKE must be 1 or unset, not '$EVB_BENCH_SMOKE'" >&2; exit 2 ;;
esac
smoke() { if $SMOKE; then echo "$2"; else echo "$1"; fi; }
