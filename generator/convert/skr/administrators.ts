// One cluster-admin ClusterRoleBinding per administrator of the Runtime (spec.security.administrators), as KIM's
// runtime_fsm_apply_clusterrolebindings.go writes it: its label, a User subject, the cluster-admin ClusterRole. KIM
// names them by generateName `admin-`; Git needs a name that stays, so the suffix is the user's digest.
import { createHash } from 'node:crypto';
import { LABEL_RECONCILER_MANAGED_BY, MANAGED_BY_KIM } from '../../../model/contract.js';
import { FieldError } from '../../../model/errors.js';
import type { KubeObject } from '../../../model/kube-object.js';
import type { Runtime } from '../../../model/runtime.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** `admin-` and the first 10 hex digits of the user's SHA-256: stable, and one file per user. */
export function administratorBindingName(user: string): string {
  return `admin-${createHash('sha256').update(user).digest('hex').slice(0, 10)}`;
}

/** In the Runtime's order, each user once (KIM binds a user it finds bound already no second time). */
export function administratorBindings(runtime: Runtime): KubeObject[] {
  const users = runtime.spec.security.administrators;
  users.forEach((user, i) => {
    if (user === '')
      throw new FieldError(
        `spec.security.administrators[${i}]`,
        'is empty: a ClusterRoleBinding needs a user name; remove the entry or name the user',
      );
  });
  return [...new Set(users)].map((user) => ({
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: administratorBindingName(user), labels: { [LABEL_RECONCILER_MANAGED_BY]: MANAGED_BY_KIM } },
    subjects: [{ kind: 'User', name: user, apiGroup: RBAC_GROUP }],
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'cluster-admin' },
  }));
}
