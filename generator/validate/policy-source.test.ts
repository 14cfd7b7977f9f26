import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { readKebZones } from '../../adapters/files/keb-zones.js';
import { readLandscape } from '../../adapters/files/landscape.js';
import { readPolicySet } from '../../adapters/files/policies.js';
import { KubeClient } from '../../adapters/kube/kube-client.js';
import { policySource } from './policy-source.js';

const shipped = { readPolicySet, readKebZones };

describe('policySource', () => {
  it("lists the Garden's CloudProfiles for every pass, so a zone Gardener adds is known without a restart", async () => {
    let zones = ['eu-central-1a'];
    let lists = 0;
    const garden = createServer((req, res) => {
      lists++;
      expect(req.url).toMatch(/^\/apis\/core\.gardener\.cloud\/v1beta1\/cloudprofiles/);
      const profile = {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'CloudProfile',
        metadata: { name: 'aws' },
        spec: { type: 'aws', regions: [{ name: 'eu-central-1', zones: zones.map((name) => ({ name })) }] },
      };
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ kind: 'CloudProfileList', metadata: {}, items: [profile] }));
    });
    await new Promise<void>((resolve) => garden.listen(0, '127.0.0.1', resolve));
    try {
      const config = new KubeConfig();
      config.loadFromOptions({
        clusters: [
          { name: 'garden', server: `http://127.0.0.1:${(garden.address() as AddressInfo).port}`, skipTLSVerify: true },
        ],
        users: [{ name: 'u', token: 't' }],
        contexts: [{ name: 'garden', cluster: 'garden', user: 'u' }],
        currentContext: 'garden',
      });
      const source = await policySource(
        await readLandscape('dev'),
        shipped,
        KubeClient.fromKubeConfig(config, 'test garden'),
      );
      expect((await source.params(undefined))['zones.aws.eu-central-1']).toBe('eu-central-1a');
      zones = ['eu-central-1a', 'eu-central-1b'];
      expect((await source.params(undefined))['zones.aws.eu-central-1']).toBe('eu-central-1a,eu-central-1b');
      expect(lists).toBe(2);
    } finally {
      await new Promise((resolve) => garden.close(resolve));
    }
  });

  it("uses KEB's zones without a Garden, and reads a policy set once", async () => {
    const source = await policySource(await readLandscape('dev'), shipped);
    expect((await source.params(undefined))['zones.gcp.me-central2']).toBe('me-central2-a,me-central2-b,me-central2-c');
    expect(await source.policies('default')).toBe(await source.policies('default'));
    await expect(source.policies('nope')).rejects.toThrow('no policy set "nope"');
  });
});
