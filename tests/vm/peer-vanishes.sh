# In the VM: a 2-rank verbs run loses rank 1 (SIGKILL) once it is building events (its first
# progress line; under TCG and ASan the start can take many seconds, so a fixed delay may kill
# rank 1 before the bootstrap). Rank 0 must name it and the run must end (non-zero) long before
# its 60 s duration.
E=${1:?evbench binary}
. "$(dirname "$0")/wait-for-progress.sh"
$E --transport verbs --launch-local 2 --duration 60s --grace 5s --fragment-size 64KiB > /tmp/out.txt 2> /tmp/err.txt &
launcher=$!
wait_for_progress /tmp/out.txt "$launcher"
victim=$(ps | grep "{exe}" | grep -v grep | tail -1 | awk '{print $1}')
killed_at=$(date +%s)
kill -9 "$victim"
wait "$launcher"
echo "launcher_rc=$?"
echo "seconds=$(( $(date +%s) - killed_at ))"
cat /tmp/err.txt
