#!/bin/sh
# The last step of both CI image builds (docker/Dockerfile and docker/Dockerfile.offline): trust
# mounted checkouts in git, then check that everything piper-agent runs on is in the image, so a
# broken image fails its build instead of its first CI job.
# Usage (as root, inside the image): sh /app/docker/finish-ci-image.sh
set -eu

# No `safe.directory '*'`: that would make git trust any repository's own config. piper-agent
# passes the git dir and work tree of the one checkout it works on explicitly (with
# `-c safe.directory=<that root>`), which reads a checkout owned by the CI runner's user.
if command -v git >/dev/null 2>&1; then
  git --version
else
  # The offline build copies the host's git; a host without one gives an image without one.
  echo "warning: no git in this image: the code index and the workspace snapshot walk the tree" \
    "instead of asking git (no .gitignore), and the ledger records no HEAD" >&2
fi

# The offline build copies the host's node binary, which is linked against the host's glibc and
# libstdc++: every library it needs must resolve inside this root filesystem.
node=$(command -v node)
missing=$(ldd "$node" 2>&1 | grep 'not found' || true)
if [ -n "$missing" ]; then
  echo "node ($node) needs libraries this image lacks:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "node $(node --version)"

# The lint gate's compile() check runs python3 on this side, before an edit is written.
python3 --version

# better-sqlite3 is a native module: it must load with this node and this libc.
node -e "const D = require('/app/node_modules/better-sqlite3'); new D(':memory:').prepare('select 1').get();"
echo "better-sqlite3 loads"

echo "piper-agent $(node /app/bin/piper-agent.js --version)"
