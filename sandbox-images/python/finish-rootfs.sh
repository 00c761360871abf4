#!/bin/sh
# Turns a Debian root filesystem (debootstrap's, or the Dockerfile's base image) into the sandbox
# image's: the unprivileged user, the work dir, the entry points, git's system config (gitconfig:
# safe.directory and a commit identity), no package caches, and no world-writable path but /tmp and
# /var/tmp: the root filesystem is writable at run time (so a non-root write to a root-owned path
# fails with EACCES, as on a CI runner, not EROFS), and those two are size-capped tmpfs mounts
# then (runtime/sandbox/hardening.ts), so nothing the sandbox's user writes reaches the disk.
# Both build paths run this same script, so both give the same image.
# Usage: finish-rootfs.sh ROOT RECIPE_DIR
set -eu
root=${1%/}
recipe=$2
uid=1000
gid=1000
grep -q '^sandbox:' "$root/etc/group" || echo "sandbox:x:$gid:" >>"$root/etc/group"
grep -q '^sandbox:' "$root/etc/passwd" || echo "sandbox:x:$uid:$gid:piper sandbox:/tmp:/usr/sbin/nologin" >>"$root/etc/passwd"
mkdir -p "$root/work" "$root/opt/piper"
chown "$uid:$gid" "$root/work"
cp "$recipe/launch.py" "$recipe/workspace.py" "$root/opt/piper/"
chmod 0644 "$root/opt/piper/launch.py"
chmod 0644 "$root/opt/piper/workspace.py"
# pytest and py.test as a project environment's venv has them (runtime/env/build/project/venv-launchers.ts):
# `python3 -m pytest` in the interpreter PATH names, so `VAR=x pytest` and `cd tests && pytest`
# run as `python -m pytest` does (the working directory on sys.path), not as Debian's script.
mkdir -p "$root/usr/local/bin"
for launcher in pytest py.test; do
  printf '%s\n' '#!/bin/sh' '# written by piper-agent: pytest as the environment runs it' \
    'exec python3 -m pytest "$@"' >"$root/usr/local/bin/$launcher"
  chmod 0755 "$root/usr/local/bin/$launcher"
done
cp "$recipe/gitconfig" "$root/etc/gitconfig"
chmod 0644 "$root/etc/gitconfig"
rm -rf "$root/var/cache/apt/"* "$root/var/lib/apt/lists/"* "$root/usr/share/doc/"* \
  "$root/usr/share/man/"* "$root/usr/share/locale/"* "$root/usr/share/info/"* "$root/var/log/"*
find "$root/usr/lib/python3" -name __pycache__ -prune -exec rm -rf {} + 2>/dev/null || true
# /run/lock (and any other world-writable directory or file a package left) loses its world-write
# bit; device nodes are left alone (the engine gives every container its own /dev).
find "${root:-/}" -xdev \( -type d -o -type f \) -perm -0002 ! -path "$root/tmp" ! -path "$root/var/tmp" \
  -exec chmod o-w {} +
