#!/usr/bin/env bash
# The fastest evbench for long simulations: a profile-guided Release build (GCC -fprofile-use),
# trained on the simulator's 512-node event builder (k = 16 tree, 16 credits, 1 MiB fragments).
# Its results are the plain build's, bit for bit (launch/build-and-test.sh checks it); one
# simulated second of that run ran 1.065x faster (README, "The event builder on the simulator",
# its speed paragraphs). Two builds of evbench and the training run: about 7 minutes on 2 cores.
# Usage: bash launch/build-profile-guided.sh [build directory, build-pgo] [training time, 150ms]
#        (the training runs past the first 100 ms, where the fabric is congested as in a long run)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-build-pgo}; TRAIN=${2:-150ms}
bash launch/setup-debian.sh >/dev/null
PROFILE="$(realpath -m "$DIR")/pgo-profile"
rm -rf "$PROFILE"
cmake -S . -B "$DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEVB_BUILD_TESTS=OFF -DEVB_PGO=generate -DEVB_PGO_DIR="$PROFILE" >/dev/null
cmake --build "$DIR" --target evbench
"$DIR/evbench" --transport sim --nodes 512 --k 16 --credits 16 --fragment-size 1MiB --duration "$TRAIN" --quiet >/dev/null
cmake -S . -B "$DIR" -DEVB_PGO=use >/dev/null
cmake --build "$DIR" --target evbench
echo "$DIR/evbench: profile-guided, trained on $TRAIN simulated of the 512-node event builder"
