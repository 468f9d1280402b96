# In the VM: a 2-rank verbs run loses rank 1 (SIGKILL) after 3 s; rank 0 must name it and the
# run must end (non-zero) long before its 20 s duration.
E=${1:?evbench binary}
start=$(date +%s)
$E --transport verbs --launch-local 2 --duration 20s --grace 5s --fragment-size 64KiB --quiet > /tmp/out.txt 2> /tmp/err.txt &
launcher=$!
sleep 3
victim=$(ps | grep "{exe}" | grep -v grep | tail -1 | awk '{print $1}')
kill -9 "$victim"
wait "$launcher"
echo "launcher_rc=$?"
echo "seconds=$(( $(date +%s) - start ))"
cat /tmp/err.txt
