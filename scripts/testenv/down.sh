#!/usr/bin/env bash
# Stops the kimops test control plane started by up.sh and removes its state
# directory (etcd data, certificates, kubeconfigs, logs).
#
#   down.sh              stop and remove everything
#   down.sh --keep-logs  stop, remove everything but <state>/logs (up.sh uses
#                        this after a failed start so the logs can be read)
#
# Only processes of this plane are signalled, each by pid:
#  1. kimops-plane (pid from <state>/plane.pid), which on SIGTERM stops
#     kube-apiserver and etcd itself;
#  2. then, should it have died without doing so (SIGKILL, crash, a failed
#     start), any leftover process running one of the testenv binaries
#     (kimops-plane, kube-apiserver, etcd) whose command line names this state
#     directory (--state-dir=, --cert-dir=<state>/tmp/..., --data-dir=<state>/etcd).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

keep_logs=0
[[ "${1:-}" == --keep-logs ]] && keep_logs=1

if [[ ! -e "$STATE_DIR" ]]; then
  echo "testenv: nothing to stop ($STATE_DIR does not exist)"
  exit 0
fi
# Refuse to delete a directory that up.sh did not create.
[[ -f "$STATE_DIR/.kimops-testenv" ]] || die "$STATE_DIR is not a kimops testenv state dir (no .kimops-testenv marker); not touching it"

# wait_gone PID SECONDS: wait until PID has exited; false on timeout.
wait_gone() {
  local pid="$1" i
  for ((i = 0; i < $2 * 10; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.1
  done
  return 1
}

# stop PID NAME GRACE: SIGTERM, up to GRACE seconds, then SIGKILL.
stop() {
  local pid="$1" name="$2" grace="$3"
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  wait_gone "$pid" "$grace" && return 0
  echo "testenv: $name (pid $pid) did not stop within ${grace}s, killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
  wait_gone "$pid" 5 || true
}

# plane_pids NAME: pids of live processes whose executable is called NAME and
# that has an argument "...=$STATE_DIR" or "...=$STATE_DIR/...".
plane_pids() {
  local name="$1" dir pid exe
  for dir in /proc/[0-9]*; do
    pid="${dir#/proc/}"
    exe="$(readlink "$dir/exe" 2>/dev/null)" || continue
    # A binary removed by `build.sh --prune` while running reads as "<path> (deleted)".
    exe="${exe% (deleted)}"
    [[ "$(basename "$exe")" == "$name" ]] || continue
    while IFS= read -r -d '' arg; do
      if [[ "$arg" == *"=$STATE_DIR" || "$arg" == *"=$STATE_DIR/"* ]]; then
        pid_alive "$pid" && echo "$pid"
        break
      fi
    done <"$dir/cmdline" 2>/dev/null || true
  done
  return 0
}

# 1. The plane itself. A plane that is not ready yet (still starting or wedged)
#    does not react to SIGTERM before its start finishes, so give it less time.
grace=30
[[ -f "$STATE_DIR/ready" ]] || grace=3
for pid in $(plane_pids kimops-plane); do
  echo "testenv: stopping kimops-plane (pid $pid)"
  stop "$pid" kimops-plane "$grace"
done

# 2. Leftovers, in reverse start order: kube-apiserver first (it hangs on
#    shutdown once etcd is gone), then etcd.
for name in kube-apiserver etcd; do
  for pid in $(plane_pids "$name"); do
    echo "testenv: stopping leftover $name (pid $pid)"
    stop "$pid" "$name" 30
  done
done

if [[ $keep_logs == 1 ]]; then
  find "$STATE_DIR" -mindepth 1 -maxdepth 1 ! -name logs ! -name .kimops-testenv -exec rm -rf {} +
  echo "testenv: stopped; logs kept in $STATE_DIR/logs"
else
  rm -rf "$STATE_DIR"
  echo "testenv: stopped; removed $STATE_DIR"
fi
