# In the VM: a 3-node verbs run (ppn 2) with --on-failure continue loses BU 1 (rank 3, SIGKILL)
# once it is building events (its first progress line). The run must go on without it and end
# by itself with exit code 0, every assigned event built, no data error.
E=${1:?evbench binary}
. "$(dirname "$0")/wait-for-progress.sh"
$E --transport verbs --launch-local 6 --ppn 2 --credits 4 --duration 8s --progress-interval 1s --fragment-size 64KiB \
   --on-failure continue > /tmp/out.txt 2> /tmp/err.txt &
launcher=$!
wait_for_progress /tmp/out.txt "$launcher"
for d in /proc/[0-9]*; do
  if tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qx 'EVBENCH_RANK=3'; then kill -9 "${d#/proc/}"; echo "killed rank 3"; fi
done
wait_for_end "$launcher" 120
echo "launcher_rc=$?"
grep -E '^# (system|lost|failures)' /tmp/out.txt
cat /tmp/err.txt
