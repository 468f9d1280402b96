# Sourced by the benchmarks that measure soft-RoCE's limit in the VM (tests/vm): rails_bench.sh
# and verbs_bench.sh. Sets IBW_PAIR, the text of a shell function for the VM's script: `ibw FLAGS`
# runs an ib_write_bw server in the background and its client against it (10.0.0.1) and prints
# the client's output. perftest first calibrates its cycle clock and, when the emulated vCPU was
# descheduled meanwhile (r^2 < 0.9), prints "Can't produce a report" instead of figures; in a
# bidirectional run the server's own failed calibration shows at the client as "Couldn't read
# reports". Any run without a row of figures is tried again, five times at most, after the
# server of the failed try is killed (a stale server on the port answers the next client).
IBW_PAIR='ibw() { for try in 1 2 3 4 5; do killall ib_write_bw >/dev/null 2>&1; sleep 1; (ib_write_bw "$@" >/dev/null 2>&1 &); sleep 1; o=$(timeout 120 ib_write_bw "$@" 10.0.0.1 2>&1); printf "%s\n" "$o" | grep -Eq "^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+" && break; echo "(ib_write_bw: try $try printed no figures: $(printf "%s\n" "$o" | grep -m1 -iE "report|couldn|unable|fail"))" >&2; done; killall ib_write_bw >/dev/null 2>&1; echo "$o"; }'
