// A Runtime as KEB creates it, on the plane's KCP, for a test that takes one through the whole pipeline; and the
// clean-up of what the applier put on the SKR for it. The plane's kube-apiserver is every test's SKR: each such
// Runtime gets an OIDC client of its own, so the clean-up removes this test's OpenIDConnect and no other.
import { createHash, randomBytes } from 'node:crypto';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import { exampleRuntime } from './shoots.js';
import type { Testenv } from './testenv.js';

const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const CRB = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' } as const;
const OIDC = { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect' } as const;

export interface PlaneRuntime {
  /** The Runtime (the aws example, named `rt-<shoot>`). */
  runtime: Runtime;
  shoot: string;
  name: string;
  /** `<namespace>/<name>`: the status's row key. */
  key: string;
  /** Creates it on the KCP. */
  create(): Promise<void>;
  /** Removes the ClusterRoleBindings of its administrators and its OpenIDConnect from the SKR. */
  cleanSkr(): Promise<void>;
}

/** A new Runtime `rt-s<8 hex>` for `namespace` with its own OIDC client, not yet created. */
export function planeRuntime(env: Testenv, namespace: string): PlaneRuntime {
  const shoot = `s${randomBytes(4).toString('hex')}`;
  const name = `rt-${shoot}`;
  const runtime = exampleRuntime('aws.yaml', shoot);
  runtime.metadata = { ...runtime.metadata, namespace, name };
  const clientID = `${shoot}-client`;
  const oidcConfig = runtime.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig?.[0];
  if (!oidcConfig) throw new Error('the aws example has no additionalOidcConfig');
  oidcConfig.clientID = clientID;
  const admins = [...runtime.spec.security.administrators];
  return {
    runtime,
    shoot,
    name,
    key: `${namespace}/${name}`,
    async create() {
      const created = await env.kcp.create({ ...runtime, ...RUNTIME } as unknown as KubeObject);
      if (!created.ok) throw new Error(`Runtime ${name}: ${describeFailure(created)}`);
    },
    async cleanSkr() {
      for (const user of admins) await env.kcp.delete({ ...CRB, name: bindingName(user) });
      const oidc = await env.kcp.get<KubeObject & { spec?: { clientID?: string } }>({ ...OIDC, name: 'kyma-oidc-0' });
      if (oidc.ok && oidc.body.spec?.clientID === clientID) await env.kcp.delete({ ...OIDC, name: 'kyma-oidc-0' });
    },
  };
}

/** KIM's (and the generator's) name of an administrator's binding on the SKR. */
function bindingName(user: string): string {
  return `admin-${createHash('sha256').update(user).digest('hex').slice(0, 10)}`;
}
