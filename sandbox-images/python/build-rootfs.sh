#!/bin/sh
# Offline path: build the sandbox root filesystem from Debian's packages with debootstrap.
# No base image is pulled; the packages come from the Debian mirror this machine's apt uses
# (or PIPER_DEBIAN_MIRROR), and downloaded .debs are kept in a cache for the next build.
# Usage: build-rootfs.sh TARGET_DIR [SUITE]   (SUITE: recipe.json's "suite" when not given)
set -eu
target=$1
here=$(cd "$(dirname "$0")" && pwd)
suite=${2:-$(sed -n 's/.*"suite": *"\([^"]*\)".*/\1/p' "$here/recipe.json")}
variant=$(sed -n 's/.*"variant": *"\([^"]*\)".*/\1/p' "$here/recipe.json")
# debootstrap takes the list comma-separated.
packages=$("$here/packages.sh" "$here/recipe.json" "$suite" | tr ' ' ',')

mirror=${PIPER_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  # The first plain (non-security) Debian URI of apt's own configuration.
  mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}' | grep -v security | head -n 1)
fi
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" && $3 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
fi
if [ -z "$mirror" ]; then
  echo "no Debian mirror found in apt's configuration; set PIPER_DEBIAN_MIRROR" >&2
  exit 3
fi
command -v debootstrap >/dev/null 2>&1 || {
  echo "debootstrap is not installed (apt-get install debootstrap)" >&2
  exit 3
}
cache=${PIPER_DEB_CACHE:-/var/cache/piper-agent/debs}
mkdir -p "$cache" "$target"
echo "debootstrap $suite ($variant) with $packages"
debootstrap --variant="$variant" --include="$packages" --cache-dir="$cache" "$suite" "$target" "$mirror"
"$here/finish-rootfs.sh" "$target" "$here"
echo "root filesystem ready: $(du -sh "$target" | cut -f1)"
