# In the VM: a 2-rank verbs run loses rank 1 (SIGKILL) once it is building events (its first
# progress line; under TCG and ASan the start can take many seconds, so a fixed delay may kill
# rank 1 before the bootstrap). Rank 0 must name it and the run must end (non-zero) long before
# its 60 s duration.
E=${1:?evbench binary}
. "$(dirname "$0")/wait-for-progress.sh"
$E --transport verbs --launch-local 2 --duration 60s --grace 5s --fragment-size 64KiB > /tmp/out.txt 2> /tmp/err.txt &
launcher=$!
wait_for_progress /tmp/out.txt "$launcher"
# Rank 1 by its environment, as bu-killed.sh finds its rank: picking it from ps by name killed
# nothing once in 20 runs (the run then went on for its whole duration).
killed_at=$(date +%s)
for d in /proc/[0-9]*; do
  if tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qx 'EVBENCH_RANK=1'; then kill -9 "${d#/proc/}"; echo "killed rank 1"; fi
done
wait_for_end "$launcher" 120
echo "launcher_rc=$?"
echo "seconds=$(( $(date +%s) - killed_at ))"
cat /tmp/err.txt
