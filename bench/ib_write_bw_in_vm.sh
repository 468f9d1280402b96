# Sourced by the benchmarks that measure soft-RoCE's limit in the VM (tests/vm): rails_bench.sh
# and verbs_bench.sh. Sets IBW_PAIR, the text of a shell function for the VM's script: `ibw FLAGS`
# runs an ib_write_bw server in the background and its client against it (10.0.0.1) and prints
# the client's output. perftest first calibrates its cycle clock and, when the emulated vCPU was
# descheduled meanwhile (r^2 < 0.9), prints "Can't produce a report" instead of figures: such a
# run is tried again, three times at most.
IBW_PAIR='ibw() { for try in 1 2 3; do (ib_write_bw "$@" >/dev/null 2>&1 &); sleep 1; o=$(ib_write_bw "$@" 10.0.0.1 2>&1); case "$o" in *"produce a report"*) echo "(ib_write_bw: try $try could not calibrate its clock)" >&2; sleep 1 ;; *) break ;; esac; done; echo "$o"; }'
