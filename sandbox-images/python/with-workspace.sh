#!/bin/sh
# The sandbox's entry point for runs with a workspace (run_test): the repository snapshot arrives
# as a tar stream on stdin (no host path is ever mounted), is unpacked into the work dir, a tmpfs,
# and then the command replaces this shell.
set -e
tar -x --no-same-owner --no-same-permissions -C "${PIPER_WORKDIR:-/work}" -f -
exec "$@" </dev/null
