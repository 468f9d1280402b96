# Sourced by the launch scripts: the evbench they start. $EVBENCH if set; else the one built in
# the source tree beside them (build/evbench); else the installed one (PREFIX/bin/evbench, for
# scripts in PREFIX/share/evbench/launch); else evbench on PATH.
#   evbench=$(find_evbench "$here" mpirun.sh)
find_evbench() {
  local here=$1 script=$2 candidate
  if [ -n "${EVBENCH:-}" ]; then echo "$EVBENCH"; return 0; fi
  for candidate in "$here/../build/evbench" "$here/../../../bin/evbench"; do
    if [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  command -v evbench && return 0
  echo "$script: error: evbench not found (build it, install it with cmake --install, or set EVBENCH)" >&2
  return 1
}
