#!/bin/sh
# Prints the packages of recipe.json for one suite, space-separated: its "packages" list, then the
# suite's own under "suite-packages" (a package one suite has and another does not). It is the one
# list both build paths install (build-rootfs.sh hands it to debootstrap, the Dockerfile to
# apt-get). recipe.json's "reasons" says why each package is there; nothing reads it but people
# and the recipe's unit test.
# Usage: packages.sh RECIPE_JSON [SUITE]   (SUITE: recipe.json's "suite" when not given)
set -eu
json=$(tr -d '\n' <"$1")
suite=${2:-$(printf '%s' "$json" | sed -n 's/.*"suite": *"\([^"]*\)".*/\1/p')}
list() { tr -d '" ' | tr ',' ' '; }
common=$(printf '%s' "$json" | sed -n 's/.*"packages": *\[\([^]]*\)\].*/\1/p' | list)
own=$(printf '%s' "$json" | sed -n 's/.*"suite-packages": *{[^}]*"'"$suite"'": *\[\([^]]*\)\].*/\1/p' | list)
echo $common $own
