# shellcheck shell=bash
# Shared settings for the kimops test control plane scripts (sourced, not run).
#
#   build.sh  builds etcd, kube-apiserver, kimops-plane and kimops-kustomize into the cache
#   up.sh     starts the plane in the background and writes kubeconfigs
#   down.sh   stops it and removes its state directory
#   smoke.sh  checks a running plane end to end
#
# Environment:
#   KIMOPS_TESTENV_CACHE  where binaries are cached     (default ~/.cache/kimops/testenv)
#   KIMOPS_TESTENV_STATE  state dir of a running plane  (default /tmp/kimops-testenv)
#   KIMOPS_TESTENV_GO     go command to use             (default: go on PATH, else /usr/local/go/bin/go)

TESTENV_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE_ROOT="${KIMOPS_TESTENV_CACHE:-${HOME}/.cache/kimops/testenv}"
# shellcheck disable=SC2034 # used by the scripts that source this file
STATE_DIR="${KIMOPS_TESTENV_STATE:-/tmp/kimops-testenv}"
# Absolute, so that the paths handed to the plane (and matched by down.sh)
# do not depend on the current directory.
[[ "$STATE_DIR" == /* ]] || STATE_DIR="$PWD/$STATE_DIR"
STATE_DIR="${STATE_DIR%/}"

# The binaries the plane needs, as "<name> <wrapper module dir> <package>".
# kimops-plane is our own main package (plane/main.go), hence ".". kimops-kustomize
# (kustomize/main.go) is no part of the plane: the deploy/ tests render the
# kustomizations with it, so that no machine needs kubectl or a kustomize binary.
COMPONENTS=(
  "etcd etcd go.etcd.io/etcd/server/v3"
  "kube-apiserver kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver"
  "kimops-plane plane ."
  "kimops-kustomize kustomize ."
)

# Files whose content decides the cache key: a change to any pinned version
# (go.mod/go.sum) or to our own Go code gives a new cache directory.
# Globs, expanded inside TESTENV_DIR by cache_key (every .go file of the plane counts).
HASHED_FILES=(
  etcd/go.mod etcd/go.sum
  kube-apiserver/go.mod kube-apiserver/go.sum
  plane/go.mod plane/go.sum 'plane/*.go'
  kustomize/go.mod kustomize/go.sum 'kustomize/*.go'
)
# Bump when the build recipe (flags) changes in a way that matters.
RECIPE_VERSION=1

die() { echo "testenv: $*" >&2; exit 1; }

find_go() {
  if [[ -n "${KIMOPS_TESTENV_GO:-}" ]]; then GO="$KIMOPS_TESTENV_GO"
  elif command -v go >/dev/null 2>&1; then GO="$(command -v go)"
  elif [[ -x /usr/local/go/bin/go ]]; then GO=/usr/local/go/bin/go
  else die "no Go toolchain found (set KIMOPS_TESTENV_GO); this needs a machine with Go >= 1.26"
  fi
}

# cache_key prints a short hash of the wrapper modules, our Go code, the
# recipe version and the Go version (a different compiler = a new build).
cache_key() {
  find_go
  {
    echo "recipe ${RECIPE_VERSION}"
    "$GO" env GOVERSION
    cd "$TESTENV_DIR" || exit 1
    # shellcheck disable=SC2068 # the patterns are meant to be globbed here
    for f in ${HASHED_FILES[@]}; do
      echo "== $f"
      cat "$f"
    done
  } | sha256sum | cut -c1-16
}

bin_dir() { echo "${CACHE_ROOT}/$(cache_key)/bin"; }

# bin_complete DIR: true when every component binary and the marker are there.
bin_complete() {
  local dir="$1" c
  [[ -f "$dir/.complete" ]] || return 1
  for c in "${COMPONENTS[@]}"; do
    [[ -x "$dir/${c%% *}" ]] || return 1
  done
}

# pid_alive PID: true when PID exists and is not a zombie.
pid_alive() {
  local pid="$1"
  [[ -n "$pid" && -d "/proc/$pid" ]] || return 1
  [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != "Z" ]]
}
