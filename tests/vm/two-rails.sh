#!/bin/sh
# Inside the VM (tests/vm/run-in-vm.sh): a second soft-RoCE device, rxe1 on a second dummy
# interface d1 (10.0.1.1), beside rxe0 on d0; then verbs event building over both rails, with
# each device's own sent-packet counter read before and after. Usage: sh two-rails.sh EVBENCH
set -e
evbench=$1
ip link add d1 type dummy
ip addr add 10.0.1.1/24 dev d1
ip link set d1 up
rdma link add rxe1 type rxe netdev d1
rdma link show
sent() { cat /sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts; }
before0=$(sent rxe0); before1=$(sent rxe1)
set +e
"$evbench" --transport verbs --launch-local 2 --rails rxe0,rxe1 --events 200 --fragment-size 256KiB --verify full --json /tmp/rails.json
echo "rc=$?"
set -e
echo "sent_pkts rxe0=$(( $(sent rxe0) - before0 )) rxe1=$(( $(sent rxe1) - before1 ))"
echo "=== json"
cat /tmp/rails.json
echo
echo "=== end"
