# In the VM: a 2-rank verbs run loses rank 1 (SIGKILL) once it is building events (its first
# progress line; under TCG and ASan the start can take many seconds, so a fixed delay may kill
# rank 1 before the bootstrap). Rank 0 must name it and the run must end (non-zero) long before
# its 60 s duration.
E=${1:?evbench binary}
$E --transport verbs --launch-local 2 --duration 60s --grace 5s --fragment-size 64KiB > /tmp/out.txt 2> /tmp/err.txt &
launcher=$!
waited=0
until grep -q '^\[' /tmp/out.txt 2>/dev/null; do
  sleep 1; waited=$((waited + 1))
  [ $waited -lt 240 ] || { echo "no progress line within 240 s"; cat /tmp/err.txt; kill -9 $launcher; exit 1; }
done
victim=$(ps | grep "{exe}" | grep -v grep | tail -1 | awk '{print $1}')
killed_at=$(date +%s)
kill -9 "$victim"
wait "$launcher"
echo "launcher_rc=$?"
echo "seconds=$(( $(date +%s) - killed_at ))"
cat /tmp/err.txt
