#!/usr/bin/env bash
# README's quick-start times on a fresh Debian 12: a minimal bookworm made by debootstrap from the
# Debian archive (nothing of this machine's packages in it), a clone of this repository's HEAD,
# then the two quick-start commands one after the other, each timed with the packages it installs.
# Usage (root, the archive reachable): bash tools/quick_start_on_fresh_debian.sh [DIR]
# DIR (default /srv/evbench-fresh) is made anew and left behind for a look; its mounts are undone.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-/srv/evbench-fresh}
[ "$(id -u)" -eq 0 ] || { echo "quick_start_on_fresh_debian.sh: run as root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap > /dev/null || apt-get install -y -q debootstrap > /dev/null
rm -rf "$root"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian > /dev/null
cp /etc/hosts /etc/resolv.conf "$root/etc/"
undo() { umount -R "$root/dev" "$root/sys" 2> /dev/null || true; umount "$root/proc" "$root/tmp" 2> /dev/null || true; }
trap undo EXIT
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"
# What a user has before the quick start: git, to clone.
chroot "$root" bash -c 'apt-get update -q > /dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git ca-certificates > /dev/null'
git clone -q "$PWD" "$root/root/evbench"
chroot "$root" bash -c '
  cd /root/evbench
  s=$(date +%s); bash launch/build-and-run.sh > /root/build-and-run.log 2>&1; m=$(date +%s)
  bash launch/build-and-test.sh > /root/build-and-test.log 2>&1; e=$(date +%s)
  echo "build-and-run.sh: $(( m - s )) s, $(grep -c "^Setting up" /root/build-and-run.log) packages set up"
  echo "build-and-test.sh after it: $(( e - m )) s, $(grep -c "^Setting up" /root/build-and-test.log) packages set up"
  grep -E "tests passed" /root/build-and-test.log'
