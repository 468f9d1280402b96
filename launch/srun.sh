#!/usr/bin/env bash
# evbench under Slurm's srun, ranks in the order of a hostfile (SLURM_HOSTFILE with
# --distribution=arbitrary), PPN processes per node, bound to cores, PMIx for the mpi transport
# unless SRUN_MPI says otherwise.
#   launch/srun.sh -n NODES [-p PPN] [-H hosts.txt] [-e] -- [evbench flags]
# Without -H, Slurm's own node order is used. Runs inside an allocation (salloc or sbatch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=find_evbench.sh
source "$here/find_evbench.sh"
evbench=$(find_evbench "$here" srun.sh)
hosts="" nodes="" ppn=1 em_own=0
while getopts "H:n:p:e" opt; do
  case $opt in
    H) hosts=$OPTARG ;; n) nodes=$OPTARG ;; p) ppn=$OPTARG ;; e) em_own=1 ;;
    *) echo "srun.sh: usage: -n nodes [-p ppn] [-H hosts] [-e] -- evbench flags" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1)); [ "${1:-}" = "--" ] && shift
[[ "$nodes" =~ ^[0-9]+$ ]] && (( nodes >= 2 )) || { echo "srun.sh: error: -n: give the number of nodes (at least 2)" >&2; exit 2; }
[ "$ppn" = 1 ] || [ "$ppn" = 2 ] || { echo "srun.sh: error: -p must be 1 or 2" >&2; exit 2; }
np=$((nodes * ppn + em_own))
# Every connection between the ranks proves a key only they share (docs/security.md; srun passes the
# environment on): a fresh one
# for this run unless EVBENCH_RUN_KEY is set (a --run-key-file among the flags wins over it).
[ -n "${EVBENCH_RUN_KEY:-}" ] || EVBENCH_RUN_KEY=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
export EVBENCH_RUN_KEY
# SRUN_MPI: srun's --mpi (set, even empty, it wins; unset: pmix when the run's transport is mpi,
# else Slurm's default, MpiDefault in slurm.conf). CPU_BIND (default cores; empty where the cluster
# lacks task/affinity), SRUN_ARGS: more srun options, SRUN_LAYOUT: how tasks spread without -H
# (default --ntasks-per-node=PPN; empty on a single test machine).
# shellcheck disable=SC2206 # SRUN_ARGS holds options, split on purpose
args=(-n "$np" ${SRUN_ARGS:-})
if [ -n "${SRUN_MPI+set}" ]; then
  mpi=$SRUN_MPI
else
  mpi=""
  previous=""
  for a in "$@"; do
    if { [ "$previous" = --transport ] && [ "$a" = mpi ]; } || [ "$a" = --transport=mpi ]; then mpi=pmix; fi
    previous=$a
  done
fi
[ -n "$mpi" ] && args+=(--mpi="$mpi")
cpu_bind=${CPU_BIND-cores}
[ -n "$cpu_bind" ] && args+=(--cpu-bind="$cpu_bind")
extra=(); (( em_own )) && extra+=(--em own)
if [ -n "$hosts" ]; then
  [ -r "$hosts" ] || { echo "srun.sh: error: -H: hostfile '$hosts' not readable" >&2; exit 2; }
  order=$(mktemp)
  trap 'rm -f "$order"' EXIT
  mapfile -t list < <(grep -v '^\s*$' "$hosts")
  (( nodes <= ${#list[@]} )) || { echo "srun.sh: error: -n $nodes: the hostfile has ${#list[@]} hosts" >&2; exit 2; }
  { (( em_own )) && echo "${list[0]}"; for ((i = 0; i < nodes; i++)); do for ((j = 0; j < ppn; j++)); do echo "${list[$i]}"; done; done; } > "$order"
  # The EM's own rank is the last one: move the extra line to the end.
  if (( em_own )); then tail -n +2 "$order" > "$order.x"; head -1 "$order" >> "$order.x"; mv "$order.x" "$order"; fi
  export SLURM_HOSTFILE=$order
  args+=(--distribution=arbitrary)
else
  layout=${SRUN_LAYOUT---ntasks-per-node=$ppn}
  [ -n "$layout" ] && args+=("$layout")
fi
srun "${args[@]}" "$evbench" --nodes "$nodes" --ppn "$ppn" "${extra[@]}" "$@"
