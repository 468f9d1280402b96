# Sourced by the VM scripts: wait_for_progress OUT LAUNCHER waits for the first progress line of
# a run writing to OUT (under TCG and ASan the start can take many seconds, so a fixed delay may
# act before the bootstrap); after 240 s it prints the run's errors, kills LAUNCHER and exits 1.
wait_for_progress() {
  waited=0
  until grep -q '^\[' "$1" 2>/dev/null; do
    sleep 1; waited=$((waited + 1))
    [ $waited -lt 240 ] || { echo "no progress line within 240 s"; cat /tmp/err.txt; kill -9 "$2"; exit 1; }
  done
}
