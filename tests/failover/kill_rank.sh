#!/bin/bash
# Runs an `evbench --launch-local` command, waits for its first progress line (or the
# $KILL_AFTER_LINES-th), then sends SIGNAL to the process of rank RANK, as a failing node would be;
# with $WAKE_AFTER (seconds) a SIGCONT follows that long after, as a node that was only stalled.
# Exits with the command's exit code.
# usage: kill_rank.sh SIGNAL RANK OUT -- command...   (the command's stdout goes to OUT)
sig=$1 rank=$2 out=$3
shift 4
"$@" > "$out" &
launcher=$!
lines=${KILL_AFTER_LINES:-1}
for _ in $(seq 1 1200); do
    [ "$(grep -c '^\[' "$out" 2>/dev/null)" -ge "$lines" ] && break
    kill -0 $launcher 2>/dev/null || break
    sleep 0.05
done
for p in $(pgrep -P $launcher); do
    if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "EVBENCH_RANK=$rank"; then
        kill -"$sig" "$p" && echo "kill_rank: rank $rank (pid $p) sent SIG$sig at $(date +%s.%N)" >&2
        if [ -n "${WAKE_AFTER:-}" ]; then
            sleep "$WAKE_AFTER"
            kill -CONT "$p" && echo "kill_rank: rank $rank (pid $p) sent SIGCONT at $(date +%s.%N)" >&2
        fi
    fi
done
wait $launcher
