#!/bin/sh
# Prints recipe.json's "packages" list, space-separated: the one list both build paths install
# (build-rootfs.sh hands it to debootstrap, the Dockerfile to apt-get). recipe.json's "reasons"
# says why each package is there; nothing reads it but people and the recipe's unit test.
# Usage: packages.sh RECIPE_JSON
set -eu
tr -d '\n' <"$1" | sed -n 's/.*"packages": *\[\([^]]*\)\].*/\1/p' | tr -d '" ' | tr ',' ' '
