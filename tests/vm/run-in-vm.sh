#!/usr/bin/env bash
# Runs commands inside a QEMU virtual machine (TCG) with a Debian kernel whose soft-RoCE module
# (rdma_rxe) gives a real verbs device, rxe0, on a dummy interface d0 (10.0.0.1/24). This
# machine's own kernel has no RDMA support; any project binary or test can run in the VM.
#   tests/vm/run-in-vm.sh [-b BINARY]... [-f FILE]... [-t SECONDS] -- 'shell commands'
#     -b BINARY  copy an executable and the shared libraries it needs (ldd) into the VM, same path
#     -f FILE    copy a file as is, same path
#     -t SECONDS time limit of the whole VM run (default 600)
# Prints the commands' output and exits with their exit status (124 if the VM ran out of time).
# The kernel package is downloaded once (apt-get download) into ${EVB_VM_CACHE:-/var/cache/evbench-vm}.
set -euo pipefail
binaries=() files=() limit=600
while getopts "b:f:t:" opt; do
  case $opt in
    b) binaries+=("$OPTARG") ;; f) files+=("$OPTARG") ;; t) limit=$OPTARG ;;
    *) echo "run-in-vm.sh: usage: [-b binary]... [-f file]... [-t seconds] -- commands" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1)); [ "${1:-}" = "--" ] && shift
script=${1:?run-in-vm.sh: give the commands to run}
for tool in qemu-system-x86_64 cpio busybox; do
  command -v "$tool" >/dev/null || [ -x /bin/busybox ] || { echo "run-in-vm.sh: $tool missing (launch/setup-debian.sh installs it)" >&2; exit 2; }
done

cache=${EVB_VM_CACHE:-/var/cache/evbench-vm}
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9   # one download at a time when tests run side by side
kernel_dir=$(ls -d "$cache"/kernel-* 2>/dev/null | head -1 || true)
if [ -z "$kernel_dir" ]; then
  find_pkg() { apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' | awk '{print $1}' | sort -V | tail -1; }
  pkg=$(find_pkg)
  [ -n "$pkg" ] || { apt-get update -q >/dev/null 2>&1 || true; pkg=$(find_pkg); }
  [ -n "$pkg" ] || { echo "run-in-vm.sh: no linux-image-6.1.0-*-amd64-unsigned in the package index (apt-get update?)" >&2; exit 2; }
  (cd "$cache" && apt-get download "$pkg" >/dev/null 2>&1) || { echo "run-in-vm.sh: cannot download $pkg" >&2; exit 2; }
  kernel_dir="$cache/kernel-${pkg}"
  dpkg -x "$cache/${pkg}"_*.deb "$kernel_dir"
  rm -f "$cache/${pkg}"_*.deb
fi
flock -u 9
vmlinuz=$(ls "$kernel_dir"/boot/vmlinuz-* | head -1)
moddir=$(ls -d "$kernel_dir"/lib/modules/* | head -1)

root=$(mktemp -d /tmp/evbench-vm-XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,etc,lib/modules,run}
cp /bin/busybox "$root/bin/busybox"
# Order matters: rxe cannot add a device without crc32_generic.
modules=(crypto/crc32_generic net/ipv4/udp_tunnel net/ipv6/ip6_udp_tunnel drivers/net/dummy
         fs/configfs/configfs drivers/infiniband/core/ib_core drivers/infiniband/core/ib_uverbs
         drivers/infiniband/sw/rxe/rdma_rxe drivers/infiniband/core/ib_cm drivers/infiniband/core/iw_cm
         drivers/infiniband/core/rdma_cm drivers/infiniband/core/rdma_ucm)
for m in "${modules[@]}"; do
  f=$(ls "$moddir/kernel/$m".ko* 2>/dev/null | head -1)
  [ -n "$f" ] || { echo "run-in-vm.sh: module $m not in the kernel package" >&2; exit 2; }
  case $f in *.xz) xz -dc "$f" > "$root/lib/modules/$(basename "$m").ko" ;; *) cp "$f" "$root/lib/modules/$(basename "$m").ko" ;; esac
done
copy_with_libs() {
  local bin=$1
  mkdir -p "$root$(dirname "$bin")"
  cp -L "$bin" "$root$bin"
  ldd "$bin" 2>/dev/null | grep -oE '/[^ ]+' | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"; cp -Ln "$lib" "$root$lib" 2>/dev/null || true
  done
}
verbs_dir=/usr/lib/x86_64-linux-gnu/libibverbs
for b in "$(command -v rdma)" "$(command -v ip)" "${binaries[@]}" $(ls "$verbs_dir"/librxe-rdmav*.so 2>/dev/null); do
  [ -e "$b" ] || { echo "run-in-vm.sh: $b does not exist" >&2; exit 2; }
  copy_with_libs "$(realpath -s "$b")"
done
mkdir -p "$root/etc/libibverbs.d"
cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
for f in "${files[@]}"; do mkdir -p "$root$(dirname "$f")"; cp -L "$f" "$root$f"; done
printf '%s\n' "$script" > "$root/run.sh"
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm   # POSIX shared memory (UCX's posix transport)
for m in crc32_generic configfs udp_tunnel ip6_udp_tunnel dummy ib_core ib_uverbs rdma_rxe ib_cm iw_cm rdma_cm rdma_ucm; do
  insmod /lib/modules/$m.ko || echo "EVB_VM: insmod $m failed"
done
ip link set lo up
ip link add d0 type dummy && ip addr add 10.0.0.1/24 dev d0 && ip link set d0 up
rdma link add rxe0 type rxe netdev d0 || echo "EVB_VM: rdma link add failed"
export HOME=/tmp TMPDIR=/tmp
cd /tmp
echo "EVB_VM_BEGIN"
sh /run.sh
echo "EVB_VM_EXIT=$?"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$root.cpio.gz"
trap 'rm -rf "$root" "$root.cpio.gz"' EXIT
log=$(mktemp)
# Under TCG on a loaded host the guest kernel can hang before it runs init (soft lockups of CPU#0
# in swapper, minutes on end): a VM that has not reached init within the boot limit is booted
# again, within the run's own limit.
boot_limit=${EVB_VM_BOOT_LIMIT:-120}
deadline=$((SECONDS + limit))
qemu_status=124
set +e
for attempt in 1 2 3; do
  left=$((deadline - SECONDS))
  [ "$left" -gt 0 ] || break
  started=$SECONDS
  timeout "$left" qemu-system-x86_64 -accel tcg -m 2048 -smp 2 -kernel "$vmlinuz" -initrd "$root.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3" -nographic -no-reboot < /dev/null > "$log" 2>&1 &
  qemu=$!
  while kill -0 "$qemu" 2>/dev/null && ! grep -q EVB_VM_BEGIN "$log" && [ $((SECONDS - started)) -lt "$boot_limit" ]; do sleep 1; done
  if grep -q EVB_VM_BEGIN "$log" || ! kill -0 "$qemu" 2>/dev/null; then
    wait "$qemu"
    qemu_status=$?
    break
  fi
  echo "run-in-vm.sh: the VM did not reach its init within $boot_limit s (boot $attempt of 3); its console ends: $(tr -d '\r' < "$log" | tail -2 | tr '\n' ' ' | tr -cd '[:print:]')" >&2
  kill "$qemu" 2>/dev/null
  wait "$qemu"
done
set -e
[ -n "${EVB_VM_LOG:-}" ] && cp "$log" "$EVB_VM_LOG"   # the whole console, for debugging
tr -d '\r' < "$log" | sed -n '/EVB_VM_BEGIN$/,/^EVB_VM_EXIT=/p' | sed '1d;$d'
code=$(tr -d '\r' < "$log" | sed -n 's/^EVB_VM_EXIT=\([0-9]*\)$/\1/p' | tail -1)
if [ -z "$code" ]; then
  echo "run-in-vm.sh: the VM did not finish the commands (qemu status $qemu_status); its console:" >&2
  tr -d '\r' < "$log" | tail -30 >&2
  rm -f "$log"
  [ "$qemu_status" = 124 ] && exit 124
  exit 1
fi
tr -d '\r' < "$log" | grep '^EVB_VM:' >&2 || true
rm -f "$log"
exit "$code"
