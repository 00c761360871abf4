#!/bin/sh
# make-bundle.sh CLONE FIX OUT.bundle LABEL: the two-commit bundle of repos/: the parent tree of FIX (a
# commit of the clone CLONE), then FIX's tree, each with its upstream author and date and the
# upstream commit id in its message (`(upstream LABEL <id>)`, the id as given; the set used
# owner+name). The trees are the upstream objects; the commits are new.
set -e
clone=$1 fix=$2 out=$3 label=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q --bare "$clone" "$work/g.git"
g="$work/g.git"
parent=$(git --git-dir="$g" rev-parse "$fix^")
commit() { # SHA [-p PARENT]: a commit of SHA's tree
  sha=$1
  shift
  GIT_AUTHOR_NAME=$(git --git-dir="$g" show -s --format=%an "$sha") \
    GIT_AUTHOR_EMAIL=$(git --git-dir="$g" show -s --format=%ae "$sha") \
    GIT_AUTHOR_DATE=$(git --git-dir="$g" show -s --format=%aI "$sha") \
    GIT_COMMITTER_NAME=$(git --git-dir="$g" show -s --format=%an "$sha") \
    GIT_COMMITTER_EMAIL=$(git --git-dir="$g" show -s --format=%ae "$sha") \
    GIT_COMMITTER_DATE=$(git --git-dir="$g" show -s --format=%aI "$sha") \
    git --git-dir="$g" commit-tree "$sha^{tree}" "$@" \
    -m "$(git --git-dir="$g" show -s --format=%s "$sha") (upstream $label $sha)"
}
base=$(commit "$parent")
head=$(commit "$fix" -p "$base")
git --git-dir="$g" update-ref refs/heads/main "$head"
git --git-dir="$g" bundle create "$out" main 2>/dev/null
echo "base_commit $base, fix $head"
