#!/usr/bin/env bash
# Starts the kimops test control plane in the background and returns once it
# is ready:
#
#   etcd -> kube-apiserver (aggregation layer on) -> gardener-apiserver
#           registered through APIServices (core.gardener.cloud/v1beta1, ...)
#
# All of it listens on free 127.0.0.1 ports chosen at start. Clients use
# client certificates: <state>/kcp.kubeconfig (user "kcp") and
# <state>/garden.kubeconfig (user "garden"), both cluster-admin but distinct
# identities. The plane's pid is in <state>/plane.pid, connection details in
# <state>/plane.json, logs in <state>/logs/. Stop it with down.sh.
#
# Once ready, the plane is seeded (seed.ts): kcp-system and the Runtime and
# GardenerCluster CRDs on the KCP side; Projects, CloudProfiles, bindings,
# Seeds, ControllerRegistrations, ... in the garden.
#
# Idempotent: if a plane is already running in the state dir, it only prints
# its details again.
#
# Environment: KIMOPS_TESTENV_STATE (default /tmp/kimops-testenv),
# KIMOPS_TESTENV_CACHE (see build.sh), KIMOPS_TESTENV_START_TIMEOUT (seconds,
# default 300).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

timeout_s="${KIMOPS_TESTENV_START_TIMEOUT:-300}"
MARKER="$STATE_DIR/.kimops-testenv"

print_details() {
  echo "testenv: plane is up (pid $(cat "$STATE_DIR/plane.pid"), kube-apiserver $(jq -r .kubeApiserverUrl "$STATE_DIR/plane.json"))"
  echo "testenv: kcp kubeconfig:    $STATE_DIR/kcp.kubeconfig"
  echo "testenv: garden kubeconfig: $STATE_DIR/garden.kubeconfig"
  echo "KIMOPS_TESTENV=$STATE_DIR"
}

# --- already running? -------------------------------------------------------
if [[ -f "$STATE_DIR/plane.pid" ]] && pid_alive "$(cat "$STATE_DIR/plane.pid")"; then
  if [[ -f "$STATE_DIR/ready" ]]; then
    print_details
    exit 0
  fi
  die "a plane is starting or broken in $STATE_DIR (pid $(cat "$STATE_DIR/plane.pid")); run down.sh first"
fi
# A leftover state dir from a crashed plane: clean it up first.
if [[ -e "$STATE_DIR" ]]; then
  echo "testenv: removing stale state in $STATE_DIR"
  "$TESTENV_DIR/down.sh" >/dev/null
fi

# --- binaries ---------------------------------------------------------------
BIN="$(bin_dir)"
bin_complete "$BIN" || die "binaries missing in $BIN; run 'npm run testenv:build' first"

# --- start --------------------------------------------------------------------
mkdir -p "$STATE_DIR/logs" "$STATE_DIR/tmp"
touch "$MARKER" # lets down.sh verify it is deleting one of our state dirs
start=$(date +%s.%N)

# setsid + nohup: the plane gets its own session, so it survives the end of
# this script, npm, and the terminal. TMPDIR points into the state dir, so
# the temporary cert dirs that envtest creates are removed by down.sh too.
# KUBEBUILDER_ASSETS tells envtest where etcd and kube-apiserver are.
(
  cd "$STATE_DIR"
  exec setsid nohup env KUBEBUILDER_ASSETS="$BIN" TMPDIR="$STATE_DIR/tmp" \
    "$BIN/kimops-plane" --state-dir="$STATE_DIR" --start-timeout="${timeout_s}s" \
    >"$STATE_DIR/logs/plane.log" 2>&1 </dev/null
) &
plane_pid=$!
disown "$plane_pid" # not our job any more: no "Killed" notices from bash
echo "$plane_pid" >"$STATE_DIR/plane.pid"
echo "testenv: starting plane (pid $plane_pid, binaries $BIN, logs $STATE_DIR/logs)"

fail() {
  echo "testenv: $*" >&2
  for f in plane.log gardener-apiserver.log kube-apiserver.log etcd.log; do
    [[ -s "$STATE_DIR/logs/$f" ]] && { echo "--- tail of logs/$f" >&2; tail -n 15 "$STATE_DIR/logs/$f" >&2; }
  done
  "$TESTENV_DIR/down.sh" --keep-logs >&2 || true
  exit 1
}

# --- wait for the plane's own readiness ---------------------------------------
# kimops-plane writes <state>/ready only after kube-apiserver is healthy, every
# Gardener APIService is Available, all Gardener group/versions are
# discoverable and listable, and the kubeconfigs are written.
deadline=$((SECONDS + timeout_s))
until [[ -f "$STATE_DIR/ready" ]]; do
  plane_pid="$(cat "$STATE_DIR/plane.pid")" # rewritten by kimops-plane itself
  pid_alive "$plane_pid" || fail "plane exited before becoming ready"
  ((SECONDS < deadline)) || fail "plane not ready after ${timeout_s}s"
  sleep 0.2
done

# --- check readiness ourselves, from the outside, as the kcp user --------------
server="$(jq -r .kubeApiserverUrl "$STATE_DIR/plane.json")"
kcurl() {
  curl -sS --fail --max-time 10 --cacert "$STATE_DIR/pki/ca.crt" \
    --cert "$STATE_DIR/pki/kcp.crt" --key "$STATE_DIR/pki/kcp.key" "$@"
}
until [[ "$(kcurl "$server/readyz" 2>/dev/null)" == ok ]]; do
  ((SECONDS < deadline)) || fail "kube-apiserver /readyz not ok after ${timeout_s}s"
  sleep 0.2
done
# Every APIService served by gardener-apiserver must report Available=True.
apiservices_unavailable() {
  kcurl "$server/apis/apiregistration.k8s.io/v1/apiservices" | jq -r '
    [.items[] | select(.spec.service != null)] as $aggregated
    | if ($aggregated | length) == 0 then "none registered"
      else $aggregated[]
        | select(([.status.conditions[]? | select(.type == "Available" and .status == "True")] | length) == 0)
        | .metadata.name
      end'
}
until [[ -z "$(apiservices_unavailable 2>&1)" ]]; do
  ((SECONDS < deadline)) || fail "APIServices not Available after ${timeout_s}s: $(apiservices_unavailable 2>&1 | tr '\n' ' ')"
  sleep 0.2
done

elapsed="$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }')"
echo "testenv: ready in ${elapsed}s; $(kcurl "$server/apis/apiregistration.k8s.io/v1/apiservices" | jq '[.items[] | select(.spec.service != null)] | length') Gardener APIServices Available"

# --- seed ----------------------------------------------------------------------
# The KCP CRDs and a realistic garden (Projects, CloudProfiles, bindings, ...), from the project's
# own landscapes and KEB data; see garden-seed.ts.
(cd "$TESTENV_DIR/../.." && node --import tsx "$TESTENV_DIR/seed.ts" "$STATE_DIR") || fail "seeding the plane failed"
print_details
