#!/usr/bin/env bash
# A single-node Slurm for the tests, in a directory of its own: munged, slurmctld and slurmd on
# this host with a generated slurm.conf (select/cons_tres, proctrack/linuxproc, task/none, the
# machine's hostname with its CPUs, a partition with OverSubscribe=FORCE).
#   tests/slurm/cluster.sh start DIR   -> prints "export SLURM_CONF=DIR/slurm.conf" when the node is idle
#   tests/slurm/cluster.sh stop DIR    -> stops the daemons by process id
set -euo pipefail
cmd=${1:?start|stop}
dir=$(realpath -m "${2:?directory}")
stop() {
  for p in slurmd slurmctld munged; do
    if [ -f "$dir/$p.pid" ]; then kill "$(cat "$dir/$p.pid")" 2>/dev/null || true; fi
  done
  for p in slurmd slurmctld munged; do
    for _ in $(seq 50); do
      [ -f "$dir/$p.pid" ] && kill -0 "$(cat "$dir/$p.pid")" 2>/dev/null || break
      sleep 0.1
    done
    [ -f "$dir/$p.pid" ] && kill -9 "$(cat "$dir/$p.pid")" 2>/dev/null || true
    rm -f "$dir/$p.pid"
  done
}
if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "cluster.sh: unknown command $cmd" >&2; exit 2; }
for b in munged slurmctld slurmd srun; do
  command -v "$b" >/dev/null || { echo "cluster.sh: $b not installed (launch/setup-debian.sh installs slurm-wlm and munge)" >&2; exit 2; }
done
mkdir -p "$dir/state" "$dir/spool"
host=$(hostname -s)
cpus=$(nproc)
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge.key"
munged --key-file "$dir/munge.key" --socket "$dir/munge.socket" --pid-file "$dir/munged.pid" \
  --log-file "$dir/munged.log" --seed-file "$dir/munge.seed" --force
cat > "$dir/slurm.conf" <<CONF
ClusterName=evbench
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
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
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  if sinfo -h -o %T 2>/dev/null | grep -qE '^idle'; then echo "export SLURM_CONF=$SLURM_CONF"; exit 0; fi
  sleep 0.2
done
echo "cluster.sh: the node did not become idle; see $dir/slurmctld.log and $dir/slurmd.log" >&2
stop
exit 1
