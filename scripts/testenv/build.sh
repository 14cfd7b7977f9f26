#!/usr/bin/env bash
# Builds the kimops test control plane from the Go module proxy:
#   etcd            go.etcd.io/etcd/server/v3           (wrapper module etcd/)
#   kube-apiserver  k8s.io/kubernetes/cmd/kube-apiserver (wrapper module kube-apiserver/)
#   kimops-plane    our plane/main.go, which runs gardener-apiserver in-process
#                   via github.com/gardener/gardener/test/envtest (module plane/)
#   kimops-kustomize our kustomize/main.go: `kustomize build` through
#                   sigs.k8s.io/kustomize/api's krusty (module kustomize/), for
#                   the deploy/ tests
# into ${KIMOPS_TESTENV_CACHE:-~/.cache/kimops/testenv}/<key>/bin, where <key>
# hashes the wrapper go.mod/go.sum files, our *.go files and the Go version.
# A complete directory is reused as is; nothing is ever written into the repo.
#
# Usage: build.sh              build what is missing (idempotent)
#        build.sh --bin-dir    print the bin directory for the current key and exit
#        build.sh --force      rebuild even if the directory is complete
#        build.sh --prune      delete cached builds of other keys (old pins)
#
# Cold builds on 2 cores take a while (kube-apiserver and kimops-plane are
# several minutes each); progress is printed every minute and the full go
# output goes to <key>/logs/<name>.build.log.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

force=0
case "${1:-}" in
  --bin-dir) bin_dir; exit 0 ;;
  --force) force=1 ;;
  --prune)
    keep="$(cache_key)"
    for d in "$CACHE_ROOT"/*/; do
      [[ -d "$d" && "$(basename "$d")" != "$keep" && -d "$d/bin" ]] || continue
      echo "testenv: removing old build $d ($(du -sh "$d" | cut -f1))"
      rm -rf "$d"
    done
    exit 0 ;;
  "") ;;
  *) die "unknown argument: $1 (expected --bin-dir, --force or --prune)" ;;
esac

find_go
BIN="$(bin_dir)"
KEY_DIR="$(dirname "$BIN")"
LOG_DIR="${KEY_DIR}/logs"

if [[ $force == 0 ]] && bin_complete "$BIN"; then
  echo "testenv: binaries are up to date in $BIN"
  exit 0
fi

mkdir -p "$BIN" "$LOG_DIR"
rm -f "$BIN/.complete"

# Build settings:
#  - GOTOOLCHAIN=local: never fetch another Go toolchain behind our back;
#  - -trimpath and -ldflags '-s -w': reproducible paths, no symbol tables
#    (roughly halves the binaries);
#  - -mod=readonly: go.sum must already be complete (it is committed);
#  - -p 2: the machines have 2 cores, more parallel compiles only add memory.
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
export GOFLAGS="-trimpath -mod=readonly -buildvcs=false"
export CGO_ENABLED=0

# module_version DIR MODULE: the version of MODULE required in DIR/go.mod.
module_version() {
  awk -v m="$2" '$1 == m && $2 ~ /^v/ { print $2; exit }' "$TESTENV_DIR/$1/go.mod"
}

# version_ldflags NAME: stamp the released version into the binary, like the
# upstream release builds do (kube-apiserver's /version and gardener-apiserver's
# OpenAPI info would otherwise say v0.0.0-master). etcd's version is a constant.
version_ldflags() {
  local v major minor p=k8s.io/component-base/version
  case "$1" in
    kube-apiserver) v="$(module_version kube-apiserver k8s.io/kubernetes)" ;;
    kimops-plane) v="$(module_version plane github.com/gardener/gardener)" ;;
    *) return 0 ;;
  esac
  major="${v#v}"; major="${major%%.*}"
  minor="${v#v*.}"; minor="${minor%%.*}"
  printf -- '-X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean' \
    "$p" "$v" "$p" "$major" "$p" "$minor" "$p"
  [[ "$1" == kube-apiserver ]] && printf -- ' -X k8s.io/client-go/pkg/version.gitVersion=%s -X k8s.io/client-go/pkg/version.gitMajor=%s -X k8s.io/client-go/pkg/version.gitMinor=%s' "$v" "$major" "$minor"
  return 0
}

echo "testenv: $("$GO" version); building into $BIN"
total_start=$SECONDS
for c in "${COMPONENTS[@]}"; do
  read -r name module pkg <<<"$c"
  if [[ $force == 0 && -x "$BIN/$name" ]]; then
    echo "testenv: $name already built, skipping"
    continue
  fi
  log="$LOG_DIR/$name.build.log"
  echo "testenv: building $name ($pkg in scripts/testenv/$module), log: $log"
  start=$SECONDS
  # Build in the background so that we can print a heartbeat; the output
  # goes to a temporary name first so that a half-written binary never
  # counts as built.
  ldflags="-s -w $(version_ldflags "$name")"
  ( cd "$TESTENV_DIR/$module" &&
    exec "$GO" build -p 2 -ldflags="$ldflags" -o "$BIN/.$name.tmp" "$pkg" ) >"$log" 2>&1 &
  build_pid=$!
  while pid_alive "$build_pid"; do
    # Wake up every second, print progress once a minute.
    for _ in $(seq 60); do pid_alive "$build_pid" || break; sleep 1; done
    pid_alive "$build_pid" && echo "testenv:   ... still building $name ($((SECONDS - start))s)"
  done
  if ! wait "$build_pid"; then
    tail -n 30 "$log" >&2
    die "building $name failed after $((SECONDS - start))s (full log: $log)"
  fi
  mv "$BIN/.$name.tmp" "$BIN/$name"
  echo "testenv: built $name in $((SECONDS - start))s ($(du -h "$BIN/$name" | cut -f1))"
done

# Record what went into this directory, then mark it complete.
{
  echo "go: $("$GO" env GOVERSION)"
  "$BIN/etcd" --version 2>/dev/null | head -n1 || true
  "$BIN/kube-apiserver" --version 2>/dev/null || true
  echo "gardener: $(grep -E '^\s*github.com/gardener/gardener v' "$TESTENV_DIR/plane/go.mod" | awk '{print $2}')"
} >"$KEY_DIR/versions.txt"
touch "$BIN/.complete"
echo "testenv: done in $((SECONDS - total_start))s; $(du -sh "$BIN" | cut -f1) in $BIN"
