#!/bin/bash
# A cluster in a box: hosts in network namespaces joined by Linux bridges (the switches), every
# link a veth pair shaped each way with tc (a token bucket at the link's rate; a host's side also
# sends a socket of higher priority first, as pfifo_fast, Linux's own default, does). Root only; every
# address is in 10.77.0.0/24 inside the namespaces this script makes, nothing outside them.
#
#   tests/netns/cluster.sh up FABRIC      make the hosts and switches a fabric file describes
#   tests/netns/cluster.sh down           remove them (whatever is left of them)
#   tests/netns/cluster.sh exec HOST CMD  run CMD on HOST: its network, its host name, its /etc/hosts
#   tests/netns/cluster.sh hosts          the hosts of the fabric that is up, one per line
#   tests/netns/cluster.sh topology FABRIC  the fabric as an ibnetdiscover topology (evbench conflicts --topology)
#   tests/netns/cluster.sh cut HOST       faults: pull HOST's cable out of its switch ...
#   tests/netns/cluster.sh mend HOST      ... and plug it back in
#   tests/netns/cluster.sh shape HOST RATE  re-shape HOST's cable, both ways, to RATE (a slow link)
#   tests/netns/cluster.sh kill HOST      SIGKILL every process on HOST (a host that lost power)
#
# A fabric file (tests/netns/fabrics/): one declaration per line, '#' starts a comment.
#   switch NAME           a switch (a bridge)
#   host NAME             a host (a namespace with one interface, eth0, at 10.77.0.<its order>)
#   link A B RATE         a cable between a host and a switch or two switches, RATE as tc takes it
#                         (5gbit, 800mbit), each way
# Namespaces: evb-fabric holds the bridges, evb-NAME each host.
set -euo pipefail

state=/run/evbench-netns
prefix=10.77.0
fabric_ns=evb-fabric

die() { echo "cluster.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (it makes network namespaces)"

valid_name() { [[ $1 =~ ^[a-z][a-z0-9]{0,9}$ ]]; }

# Reads FABRIC into switches[], hosts[] and links[] ("a b rate"), refusing what is not a fabric.
read_fabric() {
  local file=$1 n=0 kind a b rate extra
  [ -f "$file" ] || die "no fabric file '$file'"
  switches=() hosts=() links=()
  while read -r kind a b rate extra || [ -n "${kind:-}" ]; do
    n=$((n + 1))
    [ -z "${kind:-}" ] || [[ $kind == \#* ]] && continue
    case $kind in
      switch|host)
        valid_name "${a:-}" && [ -z "${b:-}" ] || die "$file:$n: '$kind NAME' with NAME of a-z0-9, at most 10 characters"
        if [ "$kind" = switch ]; then switches+=("$a"); else hosts+=("$a"); fi ;;
      link)
        [ -n "${rate:-}" ] && [ -z "${extra:-}" ] || die "$file:$n: 'link A B RATE'"
        [[ $rate =~ ^[0-9]+(\.[0-9]+)?[kmg]?bit$ ]] || die "$file:$n: rate '$rate' is not tc's (e.g. 5gbit, 800mbit)"
        links+=("$a $b $rate") ;;
      *) die "$file:$n: unknown declaration '$kind' (switch, host, link)" ;;
    esac
  done < "$file"
  [ ${#hosts[@]} -ge 2 ] && [ ${#hosts[@]} -le 250 ] || die "$file: 2 to 250 hosts"
  [ ${#switches[@]} -ge 1 ] || die "$file: at least one switch"
}

is_host() { local h; for h in "${hosts[@]}"; do [ "$h" = "$1" ] && return 0; done; return 1; }
is_switch() { local s; for s in "${switches[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
address_of() { local i; for i in "${!hosts[@]}"; do [ "${hosts[$i]}" = "$1" ] && echo "$prefix.$((i + 1))" && return; done; }

# A token bucket at RATE on IF's egress in namespace NS. Its bucket holds some 2 ms at the rate,
# at least 256 KiB: veth hands over segments of up to 64 KiB (GSO), which a smaller bucket drops.
shape() {
  local ns=$1 dev=$2 rate=$3 bits
  bits=$(echo "$rate" | awk '{ v = $1 + 0; u = substr($1, length(v) + 1);
    m = (u ~ /^k/) ? 1e3 : (u ~ /^m/) ? 1e6 : (u ~ /^g/) ? 1e9 : 1; printf "%d", v * m }')
  local burst=$((bits / 8 / 500))
  [ "$burst" -ge 262144 ] || burst=262144
  tc -n "$ns" qdisc replace dev "$dev" root handle 1: tbf rate "$rate" burst "$burst" latency 20ms
}

# A host's NIC: shaped as a link, and queued as Linux queues by default, a socket of higher
# priority (SO_PRIORITY) sent first: pfifo_fast's three bands under the token bucket.
shape_host_nic() {
  shape "$1" "$2" "$3"
  tc -n "$1" qdisc replace dev "$2" parent 1:1 handle 10: pfifo_fast
}

up() {
  read_fabric "$1"
  [ ! -e "$state/fabric" ] && ! ip netns list | grep -q "^$fabric_ns\b" || die "a fabric is up already: run '$0 down' first"
  mkdir -p "$state"
  trap 'echo "cluster.sh: setting up failed; removing what was made" >&2; down >/dev/null 2>&1' ERR
  ip netns add "$fabric_ns"
  ip -n "$fabric_ns" link set lo up
  local s h a b rate
  for s in "${switches[@]}"; do
    ip -n "$fabric_ns" link add "$s" type bridge
    ip -n "$fabric_ns" link set "$s" up
  done
  for h in "${hosts[@]}"; do
    ip netns add "evb-$h"
    ip -n "evb-$h" link set lo up
    mkdir -p "/etc/netns/evb-$h"
    {
      echo "127.0.0.1 localhost"
      for a in "${hosts[@]}"; do echo "$(address_of "$a") $a"; done
    } > "/etc/netns/evb-$h/hosts"
  done
  local cabled=()
  for link in "${links[@]}"; do
    read -r a b rate <<< "$link"
    if is_host "$a" && is_switch "$b"; then
      for h in "${cabled[@]}"; do [ "$h" != "$a" ] || die "host $a has a second link: a host has one interface"; done
      cabled+=("$a")
      ip -n "$fabric_ns" link add "$a" type veth peer name eth0 netns "evb-$a"
      ip -n "$fabric_ns" link set "$a" master "$b" up
      ip -n "evb-$a" addr add "$(address_of "$a")/24" dev eth0
      ip -n "evb-$a" link set eth0 up
      shape_host_nic "evb-$a" eth0 "$rate"
      shape "$fabric_ns" "$a" "$rate"
    elif is_switch "$a" && is_switch "$b"; then
      ip -n "$fabric_ns" link add "$a-$b" type veth peer name "$b-$a"
      ip -n "$fabric_ns" link set "$a-$b" master "$a" up
      ip -n "$fabric_ns" link set "$b-$a" master "$b" up
      shape "$fabric_ns" "$a-$b" "$rate"
      shape "$fabric_ns" "$b-$a" "$rate"
    else
      die "link $a $b: a link joins a host and a switch, or two switches"
    fi
  done
  for h in "${hosts[@]}"; do
    local found=0 c
    for c in "${cabled[@]}"; do [ "$c" = "$h" ] && found=1; done
    [ $found = 1 ] || die "host $h has no link"
  done
  cp "$1" "$state/fabric"
  trap - ERR
  echo "cluster.sh: ${#hosts[@]} hosts (${hosts[*]}) on ${#switches[@]} switches, $prefix.0/24"
}

down() {
  local ns
  for ns in $(ip netns list | awk '{print $1}' | grep '^evb-' || true); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns delete "$ns"
    rm -rf "/etc/netns/$ns"
  done
  rm -rf "$state"
}

run_on() {
  local host=$1
  shift
  [ -e "$state/fabric" ] || die "no fabric is up: run '$0 up FABRIC' first"
  read_fabric "$state/fabric"
  is_host "$host" || die "no host '$host' in the fabric that is up (hosts: ${hosts[*]})"
  [ $# -gt 0 ] || die "exec $host: give a command"
  # Its own UTS namespace for its host name; ip netns exec mounts /etc/netns/evb-HOST/hosts.
  exec ip netns exec "evb-$host" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$host" "$@"
}

# The fabric as an ibnetdiscover topology (what `evbench conflicts` and the simulator read, with
# --topology): every switch and host, a port per cable in the file's order, host LIDs 1..H in
# host order, then the switches. Bridges learn the one path of a tree, so any minimal routing
# (--routing minhop) is theirs.
topology() {
  read_fabric "$1"
  local -A port_count=() cable=() lid=()
  local i s h a b rate
  for i in "${!hosts[@]}"; do lid[${hosts[$i]}]=$((i + 1)); done
  for i in "${!switches[@]}"; do lid[${switches[$i]}]=$((${#hosts[@]} + i + 1)); port_count[${switches[$i]}]=0; done
  guid() {   # name -> its node GUID (switches 0x...1000 + i, hosts 0x...2000 + 2 i)
    local j
    for j in "${!switches[@]}"; do [ "${switches[$j]}" = "$1" ] && printf '0002c903%08x' $((0x1000 + j)) && return; done
    for j in "${!hosts[@]}"; do [ "${hosts[$j]}" = "$1" ] && printf '0002c903%08x' $((0x2000 + 2 * j)) && return; done
  }
  for link in "${links[@]}"; do
    read -r a b rate <<< "$link"
    if is_host "$a"; then
      port_count[$b]=$((port_count[$b] + 1))
      cable[$b:${port_count[$b]}]="$a 1"
      cable[$a:1]="$b ${port_count[$b]}"
    else
      port_count[$a]=$((port_count[$a] + 1)); port_count[$b]=$((port_count[$b] + 1))
      cable[$a:${port_count[$a]}]="$b ${port_count[$b]}"
      cable[$b:${port_count[$b]}]="$a ${port_count[$a]}"
    fi
  done
  echo "#"
  echo "# Topology file: the cluster in a box (tests/netns/cluster.sh topology $1)"
  echo "#"
  local g rg remote rport
  for s in "${switches[@]}"; do
    g=$(guid "$s")
    printf '\nvendid=0x0\ndevid=0x0\nsysimgguid=0x%s\nswitchguid=0x%s(%s)\n' "$g" "$g" "$g"
    printf 'Switch\t%d "S-%s"\t\t# "%s" base port 0 lid %d lmc 0\n' "${port_count[$s]}" "$g" "$s" "${lid[$s]}"
    for ((i = 1; i <= port_count[$s]; i++)); do
      read -r remote rport <<< "${cable[$s:$i]}"
      rg=$(guid "$remote")
      if is_host "$remote"; then
        printf '[%d]\t"H-%s"[1](%x)\t\t# "%s" lid %d\n' "$i" "$rg" $((0x$rg + 1)) "$remote" "${lid[$remote]}"
      else
        printf '[%d]\t"S-%s"[%d]\t\t# "%s" lid %d\n' "$i" "$rg" "$rport" "$remote" "${lid[$remote]}"
      fi
    done
  done
  for h in "${hosts[@]}"; do
    g=$(guid "$h")
    read -r remote rport <<< "${cable[$h:1]}"
    printf '\nvendid=0x0\ndevid=0x0\nsysimgguid=0x%s\ncaguid=0x%s\n' "$g" "$g"
    printf 'Ca\t1 "H-%s"\t\t# "%s"\n' "$g" "$h"
    printf '[1](%x) \t"S-%s"[%d]\t\t# lid %d lmc 0 "%s" lid %d\n' $((0x$g + 1)) "$(guid "$remote")" "$rport" "${lid[$h]}" "$remote" "${lid[$remote]}"
  done
}

# The host HOST of the fabric that is up, or die.
up_host() {
  [ -e "$state/fabric" ] || die "no fabric is up"
  read_fabric "$state/fabric"
  is_host "$1" || die "no host '$1' in the fabric that is up (hosts: ${hosts[*]})"
}

case "${1:-}" in
  cut | mend) [ $# = 2 ] || die "usage: $0 $1 HOST"; up_host "$2"
    ip -n "$fabric_ns" link set "$2" "$([ "$1" = cut ] && echo down || echo up)" ;;
  shape) [ $# = 3 ] || die "usage: $0 shape HOST RATE"; up_host "$2"
    shape "$fabric_ns" "$2" "$3"; shape_host_nic "evb-$2" eth0 "$3" ;;
  kill) [ $# = 2 ] || die "usage: $0 kill HOST"; up_host "$2"
    ip netns pids "evb-$2" | xargs -r kill -KILL ;;
  up) [ $# = 2 ] || die "usage: $0 up FABRIC"; up "$2" ;;
  down) down ;;
  exec) [ $# -ge 2 ] || die "usage: $0 exec HOST COMMAND..."; shift; run_on "$@" ;;
  hosts) [ -e "$state/fabric" ] || die "no fabric is up"; read_fabric "$state/fabric"; printf '%s\n' "${hosts[@]}" ;;
  topology) [ $# = 2 ] || die "usage: $0 topology FABRIC"; topology "$2" ;;
  *) die "usage: $0 up FABRIC | down | exec HOST COMMAND... | hosts | topology FABRIC | cut HOST | mend HOST | shape HOST RATE | kill HOST" ;;
esac
