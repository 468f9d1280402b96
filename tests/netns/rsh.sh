#!/bin/sh
# Open MPI's launch agent for the test bed (mpirun --mca plm_rsh_agent tests/netns/rsh.sh): what
# would be "ssh HOST COMMAND" runs COMMAND on HOST, in its namespace with its host name.
host=$1
shift
exec "$(dirname "$0")/cluster.sh" exec "$host" sh -c "$*"
