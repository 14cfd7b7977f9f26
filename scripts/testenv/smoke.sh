#!/usr/bin/env bash
# Smoke check of a running test plane (start it with up.sh first), with
# nothing but curl, jq and the PEM files up.sh left in <state>/pki:
#
#  1. kube-apiserver /readyz is ok, for both identities, and they are
#     really different users (SelfSubjectReview);
#  2. GET /apis/core.gardener.cloud/v1beta1 through kube-apiserver lists
#     shoots, projects, cloudprofiles, ... (served by gardener-apiserver);
#  3. as "garden": create a Namespace garden-<p> and a minimal Project <p>
#     using it, read the Project back (ProjectMutator must have set
#     spec.createdBy/spec.owner to "garden");
#  4. delete the Project again: without the confirmation annotation the
#     DeletionConfirmation admission plugin must refuse, with it the delete
#     succeeds.
# The Namespace is left behind: with no kube-controller-manager running, a
# deleted namespace would stay Terminating forever; each run uses a new name.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -f "$STATE_DIR/ready" ]] || die "no running plane in $STATE_DIR; run 'npm run testenv:up' first"
server="$(jq -r .kubeApiserverUrl "$STATE_DIR/plane.json")"

# kc USER METHOD PATH [BODY [CONTENT-TYPE]]: call kube-apiserver as USER;
# prints the response body and fails on a non-2xx status (error body to stderr).
kc() {
  local user="$1" method="$2" path="$3" body="${4:-}" ctype="${5:-application/json}" out status
  out="$(mktemp)"
  status="$(curl -sS --max-time 20 -o "$out" -w '%{http_code}' -X "$method" \
    --cacert "$STATE_DIR/pki/ca.crt" --cert "$STATE_DIR/pki/$user.crt" --key "$STATE_DIR/pki/$user.key" \
    -H "Content-Type: $ctype" ${body:+--data "$body"} "$server$path")"
  if [[ "$status" != 2* ]]; then
    echo "HTTP $status from $method $path as $user: $(cat "$out")" >&2
    rm -f "$out"
    return 1
  fi
  cat "$out"
  rm -f "$out"
}
ok() { echo "  ok  $*"; }

echo "testenv smoke against $server"

for user in kcp garden; do
  [[ "$(kc "$user" GET /readyz)" == ok ]] || die "/readyz as $user is not ok"
  who="$(kc "$user" POST /apis/authentication.k8s.io/v1/selfsubjectreviews \
    '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' | jq -r .status.userInfo.username)"
  [[ "$who" == "$user" ]] || die "kubeconfig user $user authenticates as '$who'"
  ok "/readyz and SelfSubjectReview as $user"
done

resources="$(kc garden GET /apis/core.gardener.cloud/v1beta1 | jq -r '[.resources[].name | select(contains("/") | not)] | join(",")')"
for r in shoots projects cloudprofiles seeds controllerregistrations; do
  [[ ",$resources," == *",$r,"* ]] || die "core.gardener.cloud/v1beta1 does not serve $r (got: $resources)"
done
ok "GET /apis/core.gardener.cloud/v1beta1 serves: $resources"
kc garden GET /apis/core.gardener.cloud/v1beta1/shoots >/dev/null
ok "list shoots across namespaces"

# Project names are at most 10 characters; namespaces must be garden-<...>.
p="smoke$(printf '%05d' $((RANDOM % 100000)))"
ns="garden-$p"
kc garden POST /api/v1/namespaces "$(jq -n --arg ns "$ns" --arg p "$p" '{
  apiVersion: "v1", kind: "Namespace",
  metadata: { name: $ns, labels: { "gardener.cloud/role": "project", "project.gardener.cloud/name": $p } } }')" >/dev/null
ok "created Namespace $ns"

kc garden POST /apis/core.gardener.cloud/v1beta1/projects "$(jq -n --arg ns "$ns" --arg p "$p" '{
  apiVersion: "core.gardener.cloud/v1beta1", kind: "Project",
  metadata: { name: $p }, spec: { namespace: $ns } }')" >/dev/null
project="$(kc kcp GET "/apis/core.gardener.cloud/v1beta1/projects/$p")"
created_by="$(jq -r .spec.createdBy.name <<<"$project")"
owner="$(jq -r .spec.owner.name <<<"$project")"
[[ "$created_by" == garden && "$owner" == garden ]] || die "ProjectMutator did not set createdBy/owner (got createdBy=$created_by owner=$owner)"
ok "created Project $p (spec.namespace=$ns); ProjectMutator set createdBy=owner=garden; read back as kcp"

if kc garden DELETE "/apis/core.gardener.cloud/v1beta1/projects/$p" 2>/dev/null >/dev/null; then
  die "Project deleted without confirmation annotation: DeletionConfirmation plugin is not active"
fi
ok "DeletionConfirmation refused deleting $p without confirmation.gardener.cloud/deletion=true"
kc garden PATCH "/apis/core.gardener.cloud/v1beta1/projects/$p" \
  '{"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}}' application/merge-patch+json >/dev/null
kc garden DELETE "/apis/core.gardener.cloud/v1beta1/projects/$p" >/dev/null
ok "deleted Project $p after annotating it"

echo "testenv smoke: all checks passed"
