#!/usr/bin/env bash
# A Slurm for the tests, in a directory of its own: munged, slurmctld and slurmd with a generated
# slurm.conf (select/cons_tres, proctrack/linuxproc, task/none, the nodes with this machine's
# CPUs, a partition with OverSubscribe=FORCE). Either a single node, this host, or with --netns
# every host of the cluster in a box that is up (tests/netns/cluster.sh), each with its own
# slurmd in its namespace and slurmctld on the first.
#   tests/slurm/cluster.sh start DIR [--netns]  -> prints "export SLURM_CONF=DIR/slurm.conf" when every node is idle
#   tests/slurm/cluster.sh stop DIR             -> stops the daemons by process id
set -euo pipefail
cmd=${1:?start|stop}
dir=$(realpath -m "${2:?directory}")
netns=false
[ "${3:-}" = --netns ] && netns=true
bed=$(dirname "$0")/../netns/cluster.sh
stop() {
  local pids=("$dir"/slurmd*.pid "$dir/slurmctld.pid" "$dir/munged.pid") f
  for f in "${pids[@]}"; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true; done
  for f in "${pids[@]}"; do
    for _ in $(seq 50); do
      [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null || break
      sleep 0.1
    done
    [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
  if mountpoint -q "$dir/cgroup" 2>/dev/null; then umount -R "$dir/cgroup"; fi
}
if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "cluster.sh: unknown command $cmd" >&2; exit 2; }
for b in munged slurmctld slurmd srun; do
  command -v "$b" >/dev/null || { echo "cluster.sh: $b not installed (launch/setup-debian.sh installs slurm-wlm and munge)" >&2; exit 2; }
done
mkdir -p "$dir/state"
cpus=$(nproc)
if $netns; then
  mapfile -t nodes < <("$bed" hosts)
  # The hosts' daemons run under `ip netns exec`, which mounts a /sys of its own without the
  # cgroup hierarchies slurmd looks at: they see this host's through a bind mount in DIR.
  mkdir -p "$dir/cgroup"
  mount --rbind /sys/fs/cgroup "$dir/cgroup"
  printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=%s\n' "$dir/cgroup" > "$dir/cgroup.conf"
else
  nodes=("$(hostname -s)")
fi
for n in "${nodes[@]}"; do mkdir -p "$dir/spool-$n"; done
on() { if $netns; then "$bed" exec "$1" "${@:2}"; else "${@:2}"; fi; }   # NODE COMMAND...
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge.key"
munged --key-file "$dir/munge.key" --socket "$dir/munge.socket" --pid-file "$dir/munged.pid" \
  --log-file "$dir/munged.log" --seed-file "$dir/munge.seed" --force
cat > "$dir/slurm.conf" <<CONF
ClusterName=evbench
SlurmctldHost=${nodes[0]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
SelectType=select/cons_tres
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$(IFS=,; echo "${nodes[*]}") CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$(IFS=,; echo "${nodes[*]}") Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
export SLURM_CONF="$dir/slurm.conf"
on "${nodes[0]}" slurmctld -f "$SLURM_CONF"
for n in "${nodes[@]}"; do on "$n" slurmd -N "$n" -f "$SLURM_CONF"; done
for _ in $(seq 100); do
  if [ "$(on "${nodes[0]}" sinfo -h -o '%T %D' 2>/dev/null)" = "idle ${#nodes[@]}" ]; then echo "export SLURM_CONF=$SLURM_CONF"; exit 0; fi
  sleep 0.2
done
echo "cluster.sh: the nodes did not become idle; see $dir/slurmctld.log and $dir/slurmd-*.log" >&2
stop
exit 1
