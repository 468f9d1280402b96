#!/usr/bin/env bash
# evbench under Open MPI's mpirun: ranks placed node by node from a hostfile, PPN processes per
# node (--ppn 2 puts a node's RU and BU in two processes), each bound to a core.
#   launch/mpirun.sh -H hosts.txt -n NODES [-p PPN] [-e] -- [evbench flags]
#     -H FILE   one host name per line, in rank order (e.g. from `evbench fabric --write-hostfile`)
#     -n NODES  event-building nodes (default: the hosts in the file)
#     -p PPN    processes per node, 1 or 2 (default 1)
#     -e        the EM on a rank of its own (one more process, on the first host)
# Environment: BIND_TO (default core; none on an oversubscribed machine), MPIRUN_ARGS, EVBENCH,
# EVBENCH_RUN_KEY (default: a fresh random key).
# Example: launch/mpirun.sh -H hosts.txt -n 64 -p 2 -- --transport mpi --credits 2 --parallel 8 --fragment-size 512KB
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=find_evbench.sh
source "$here/find_evbench.sh"
evbench=$(find_evbench "$here" mpirun.sh)
hosts="" nodes="" ppn=1 em_own=0
while getopts "H:n:p:e" opt; do
  case $opt in
    H) hosts=$OPTARG ;; n) nodes=$OPTARG ;; p) ppn=$OPTARG ;; e) em_own=1 ;;
    *) echo "mpirun.sh: usage: -H hosts -n nodes [-p ppn] [-e] -- evbench flags" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1)); [ "${1:-}" = "--" ] && shift
[ -n "$hosts" ] && [ -r "$hosts" ] || { echo "mpirun.sh: error: -H: hostfile '$hosts' not readable" >&2; exit 2; }
mapfile -t list < <(grep -v '^\s*$' "$hosts")
[ -n "$nodes" ] || nodes=${#list[@]}
[ "$ppn" = 1 ] || [ "$ppn" = 2 ] || { echo "mpirun.sh: error: -p must be 1 or 2" >&2; exit 2; }
(( nodes >= 2 && nodes <= ${#list[@]} )) || { echo "mpirun.sh: error: -n $nodes: the hostfile has ${#list[@]} hosts" >&2; exit 2; }
# Open MPI hostfile, one line per slot in rank order: rank r lands on host r / PPN (the EM's
# own rank, the last one, on the first host).
slots=$(mktemp)
trap 'rm -f "$slots"' EXIT
{ for ((i = 0; i < nodes; i++)); do for ((j = 0; j < ppn; j++)); do echo "${list[$i]}"; done; done; (( em_own )) && echo "${list[0]}"; } > "$slots"
np=$((nodes * ppn + em_own))
extra=(); (( em_own )) && extra+=(--em own)
# Every connection between the ranks proves a key only they share (docs/security.md): a fresh one
# for this run unless EVBENCH_RUN_KEY is set (a --run-key-file among the flags wins over it).
[ -n "${EVBENCH_RUN_KEY:-}" ] || EVBENCH_RUN_KEY=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
export EVBENCH_RUN_KEY
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# MPIRUN_ARGS: more mpirun options (e.g. --oversubscribe on a test machine). -x passes the key by
# name: its value stays off every command line.
exec mpirun -np "$np" -x EVBENCH_RUN_KEY --hostfile "$slots" --map-by slot --bind-to "${BIND_TO:-core}" ${MPIRUN_ARGS:-} \
  "$evbench" --nodes "$nodes" --ppn "$ppn" "${extra[@]}" "$@"
