#!/usr/bin/env bash
# The build enforces the layers: the control probe compiles, every wrong include fails with
# "No such file" (GCC) or "file not found" (clang): the header's folder is not an include root of
# that layer's library.
set -uo pipefail
build=$1
fail=0
if ! cmake --build "$build" --target layering_unit_sees_units >/dev/null 2>&1; then
  echo "control probe failed to build: the layering check itself is broken"; exit 1
fi
for probe in unit_includes_driver unit_includes_transport driver_includes_unit core_includes_config; do
  out=$(cmake --build "$build" --target "layering_$probe" 2>&1)
  if [ $? -eq 0 ]; then
    echo "$probe: compiled, but it includes a header of a layer above"; fail=1
  elif ! grep -qE "No such file or directory|file not found" <<<"$out"; then
    echo "$probe: failed for another reason:"; echo "$out" | grep -m3 error; fail=1
  else
    echo "$probe: refused ($(grep -m1 -oE "[a-z_]*\.hpp(: No such file|' file not found)" <<<"$out"))"
  fi
done
exit $fail
