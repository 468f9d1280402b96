# Sourced by the VM scripts.
# wait_for_progress OUT LAUNCHER waits for the first progress line of a run writing to OUT (under
# TCG and ASan the start can take many seconds, so a fixed delay may act before the bootstrap);
# after 240 s it prints the run's errors, kills LAUNCHER and exits 1.
wait_for_progress() {
  waited=0
  until grep -q '^\[' "$1" 2>/dev/null; do
    sleep 1; waited=$((waited + 1))
    [ $waited -lt 240 ] || { echo "no progress line within 240 s"; cat /tmp/err.txt; kill -9 "$2"; exit 1; }
  done
}

# wait_for_end LAUNCHER SECONDS waits for the launcher like `wait`, but at most SECONDS: a run that
# does not end by itself is shown (every process's state and kernel wait channel, the run's output
# and the kernel's last messages) instead of hanging the VM until its time limit.
wait_for_end() {
  waited=0
  while kill -0 "$1" 2>/dev/null; do
    [ -d "/proc/$1" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ] && break
    sleep 1; waited=$((waited + 1))
    if [ $waited -ge "$2" ]; then
      echo "the run did not end within $2 s"
      for d in /proc/[0-9]*; do
        rank=$(tr '\0' '\n' < "$d/environ" 2>/dev/null | sed -n 's/^EVBENCH_RANK=//p')
        [ -n "$rank" ] || [ "${d#/proc/}" = "$1" ] || continue
        echo "pid ${d#/proc/} rank ${rank:-launcher}: state $(cut -d' ' -f3 "$d/stat") wchan $(cat "$d/wchan" 2>/dev/null)"
      done
      echo "--- out"; cat /tmp/out.txt; echo "--- err"; cat /tmp/err.txt; echo "--- dmesg"; dmesg | tail -20
      kill -9 "$1"; exit 1
    fi
  done
  wait "$1"
}
