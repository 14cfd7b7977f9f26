import { describe, expect, it } from 'vitest';
import { compactSecret, compactShootForStatus, SECRET_VALUE_PRESENT, withoutManagedFields } from './compact-objects.js';

describe('what the caches keep', () => {
  it('compactShootForStatus keeps metadata without managedFields, the status, the DNS domain and the OIDC extension: what the status mapping reads', () => {
    const listed = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: {
        name: 'c-1',
        namespace: 'garden-p',
        generation: 4,
        annotations: { a: 'b' },
        managedFields: [{ manager: 'kimops' }],
      },
      spec: {
        region: 'eu-west-1',
        dns: { domain: 'c-1.example.com' },
        provider: { workers: [] },
        extensions: [
          { type: 'shoot-dns-service', providerConfig: { a: 1 } },
          { type: 'shoot-oidc-service', disabled: false, providerConfig: { b: 2 } },
        ],
      },
      status: { observedGeneration: 4, lastOperation: { type: 'Reconcile', state: 'Succeeded' } },
    };
    expect(compactShootForStatus(listed)).toEqual({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'c-1', namespace: 'garden-p', generation: 4, annotations: { a: 'b' } },
      spec: { dns: { domain: 'c-1.example.com' }, extensions: [{ type: 'shoot-oidc-service', disabled: false }] },
      status: { observedGeneration: 4, lastOperation: { type: 'Reconcile', state: 'Succeeded' } },
    });
    // Without a domain (not known yet) the OIDC extension is kept alone; an OIDC extension without `disabled` is on.
    expect(
      compactShootForStatus({
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: 'young' },
        spec: { extensions: [{ type: 'shoot-oidc-service' }, { type: 'acl', disabled: true }] },
      }),
    ).toEqual({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'young' },
      spec: { extensions: [{ type: 'shoot-oidc-service' }] },
    });
    expect(
      compactShootForStatus({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'new' } }),
    ).toEqual({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'new' } });
    const runtimeLike = { apiVersion: 'v1', kind: 'X', metadata: { name: 'r', managedFields: [] }, spec: { a: 1 } };
    expect(withoutManagedFields(runtimeLike)).toEqual({
      apiVersion: 'v1',
      kind: 'X',
      metadata: { name: 'r' },
      spec: { a: 1 },
    });
  });

  it("compactShootForStatus keeps the audit-log extension and its credentials' resources: the tenant, for the dedicated audit log", () => {
    const auditlog = {
      type: 'shoot-auditlog-service',
      providerConfig: { tenantID: 't', serviceURL: 'u', secretReferenceName: 'dedicated-auditlog-credentials' },
    };
    const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', name });
    const compact = compactShootForStatus({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'c-1' },
      spec: {
        extensions: [{ type: 'shoot-dns-service', providerConfig: { a: 1 } }, auditlog],
        resources: [
          { name: 'auditlog-credentials', resourceRef: secret('shared') },
          { name: 'dedicated-auditlog-credentials', resourceRef: secret('customer') },
          { name: 'registry-cache-creds', resourceRef: secret('other') },
        ],
      },
    });
    expect(compact.spec).toEqual({
      extensions: [auditlog],
      resources: [
        { name: 'auditlog-credentials', resourceRef: secret('shared') },
        { name: 'dedicated-auditlog-credentials', resourceRef: secret('customer') },
      ],
    });
  });

  it('compactSecret keeps the metadata and which keys hold a value, not the kubeconfig', () => {
    const listed = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'kubeconfig-rid',
        namespace: 'kcp-system',
        managedFields: [{ manager: 'kimops' }],
        annotations: { 'operator.kyma-project.io/last-sync': 't' },
      },
      data: { config: 'c2VjcmV0', empty: '' },
    };
    const compact = compactSecret(listed);
    expect(compact).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'kubeconfig-rid',
        namespace: 'kcp-system',
        annotations: { 'operator.kyma-project.io/last-sync': 't' },
      },
      data: { config: SECRET_VALUE_PRESENT, empty: '' },
    });
    expect(JSON.stringify(compact)).not.toContain('c2VjcmV0');
  });
});
