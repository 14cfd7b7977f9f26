// Where a cluster's credentials come from (flag > KUBECONFIG > the Pod's ServiceAccount > a ConfigError), the
// context, and the files read again when the kubelet swaps them.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { ConfigError } from '../../model/errors.js';
import { clusterFromEnvironment, podNamespace, resolveCluster, type ClusterEnvironment } from './kubeconfig-source.js';
import { kubeletWrite } from '../../test/helpers/kubelet-mount.js';

const dir = useTempDir('kubeconfig-source');

function kubeconfig(options: {
  server?: string;
  token?: string;
  context?: string;
  current?: string | null;
  caFile?: string;
}): string {
  const context = options.context ?? 'main';
  const server = options.server ?? 'https://main.example:443';
  const ca = options.caFile === undefined ? '' : `, certificate-authority: ${options.caFile}`;
  return `apiVersion: v1
kind: Config
clusters: [{name: ${context}, cluster: {server: "${server}"${ca}}}]
users: [{name: ${context}, user: {token: ${options.token ?? 'token-of-' + context}}}]
contexts: [{name: ${context}, context: {cluster: ${context}, user: ${context}}}]
${options.current === null ? '' : `current-context: ${options.current ?? context}`}
`;
}

function token(source: ReturnType<typeof resolveCluster>): string | undefined {
  return source.current().getCurrentUser()?.token;
}

const inPod = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };

async function serviceAccount(files: Record<string, string> = {}): Promise<string> {
  const folder = join(dir.path, 'serviceaccount');
  await kubeletWrite(folder, { token: 'sa-token-1\n', 'ca.crt': 'CA-1', namespace: 'kimops-system', ...files });
  return folder;
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no ConfigError');
}

describe('resolveCluster: where the credentials come from', () => {
  it('takes the flag over KUBECONFIG and the Pod, KUBECONFIG over the Pod, and the Pod last', async () => {
    const flag = await dir.write('flag.yaml', kubeconfig({ context: 'flag' }));
    const listed = await dir.write('env.yaml', kubeconfig({ context: 'env' }));
    const serviceAccountDir = await serviceAccount();
    const all = { env: { KUBECONFIG: listed, ...inPod }, serviceAccountDir };
    expect(token(resolveCluster({ kubeconfig: flag, option: '--kcp-kubeconfig' }, all))).toBe('token-of-flag');
    expect(resolveCluster({ kubeconfig: flag, option: '--kcp-kubeconfig' }, all).label).toBe(flag);
    expect(token(resolveCluster({ option: '--kcp-kubeconfig' }, all))).toBe('token-of-env');
    const pod = resolveCluster({ option: '--kcp-kubeconfig' }, { env: inPod, serviceAccountDir });
    expect(token(pod)).toBe('sa-token-1');
    expect(pod.current().getCurrentCluster()).toMatchObject({
      server: 'https://10.0.0.1:443',
      caData: Buffer.from('CA-1').toString('base64'),
    });
    expect(pod.label).toBe(`in-cluster ServiceAccount ${serviceAccountDir}`);
  });

  it('refuses with the flag and the fix when nothing is there, and names a missing flag file', () => {
    expect(configError(() => resolveCluster({ option: '--garden-kubeconfig' }, { env: {} })).message).toBe(
      '--garden-kubeconfig: no kubeconfig: pass --garden-kubeconfig <file>, set KUBECONFIG, or run kimops in a Pod with a ServiceAccount token',
    );
    // A cluster kimops does not run in: the Pod's own ServiceAccount is not tried.
    expect(
      configError(() =>
        resolveCluster(
          { option: '--garden-kubeconfig', inCluster: false },
          { env: inPod, serviceAccountDir: join(dir.path, 'sa') },
        ),
      ).message,
    ).toBe('--garden-kubeconfig: no kubeconfig: pass --garden-kubeconfig <file> or set KUBECONFIG');
    expect(
      configError(() =>
        resolveCluster({ kubeconfig: '/nonexistent/g.yaml', option: '--garden-kubeconfig' }, { env: {} }),
      ).message,
    ).toBe('--garden-kubeconfig: /nonexistent/g.yaml does not exist; pass the path of a kubeconfig file');
    expect(
      configError(() => resolveCluster({ option: '--kcp-kubeconfig' }, { env: { KUBECONFIG: '/no/a:/no/b' } })).message,
    ).toBe(
      'KUBECONFIG: none of its files exists (/no/a:/no/b); set it to kubeconfig files, or pass --kcp-kubeconfig <file>',
    );
  });

  it('refuses an empty flag instead of falling through to KUBECONFIG, which may name another cluster', async () => {
    const other = await dir.write('kcp.yaml', kubeconfig({ token: 'kcp' }));
    expect(() =>
      resolveCluster({ kubeconfig: '', option: '--garden-kubeconfig' }, { env: { KUBECONFIG: other } }),
    ).toThrow(new ConfigError('--garden-kubeconfig', '', 'is empty; pass the path of a kubeconfig file'));
  });

  it('merges KUBECONFIG as kubectl does: missing files skipped, the first definition and current-context win', async () => {
    const a = await dir.write('a/config', kubeconfig({ context: 'shared', token: 'from-a', caFile: 'ca.crt' }));
    const b = await dir.write(
      'b/config',
      `apiVersion: v1
kind: Config
clusters: [{name: shared, cluster: {server: "https://b.example"}}, {name: garden, cluster: {server: "https://garden.example", certificate-authority: ca.crt}}]
users: [{name: shared, user: {token: from-b}}, {name: garden, user: {token: garden-token}}]
contexts: [{name: shared, context: {cluster: shared, user: shared}}, {name: garden, context: {cluster: garden, user: garden}}]
current-context: garden
`,
    );
    const env = { KUBECONFIG: [join(dir.path, 'missing'), a, b].join(':') };
    const merged = resolveCluster({ option: '--kcp-kubeconfig' }, { env });
    expect(merged.current().getCurrentContext()).toBe('shared');
    expect(token(merged)).toBe('from-a');
    expect(merged.current().getCurrentCluster()).toMatchObject({
      server: 'https://main.example:443',
      caFile: join(dir.path, 'a', 'ca.crt'),
    });
    const garden = resolveCluster({ option: '--garden-kubeconfig', context: 'garden' }, { env });
    expect(token(garden)).toBe('garden-token');
    expect(garden.current().getCurrentCluster()).toMatchObject({ caFile: join(dir.path, 'b', 'ca.crt') });
    expect(garden.label).toBe(`KUBECONFIG=${env.KUBECONFIG}, context garden`);
  });

  it('reads the Pod from its folder: token trimmed, IPv6 host in brackets, no CA file means system roots', async () => {
    const serviceAccountDir = await serviceAccount();
    await rm(join(serviceAccountDir, 'ca.crt'));
    const pod = resolveCluster(
      { option: '--kcp-kubeconfig' },
      { env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' }, serviceAccountDir },
    );
    expect(pod.current().getCurrentCluster()).toEqual({
      name: 'in-cluster',
      server: 'https://[fd00::1]:6443',
      skipTLSVerify: false,
    });
    expect(token(pod)).toBe('sa-token-1');
    expect(podNamespace({ serviceAccountDir })).toBe('kimops-system');
    expect(podNamespace({ serviceAccountDir: join(dir.path, 'nothing') })).toBeUndefined();
  });

  it('refuses a Pod without a token, and a context where there is no kubeconfig', async () => {
    const serviceAccountDir = join(dir.path, 'empty');
    expect(
      configError(() => resolveCluster({ option: '--kcp-kubeconfig' }, { env: inPod, serviceAccountDir })).message,
    ).toBe(
      `--kcp-kubeconfig: kimops runs in a Pod (KUBERNETES_SERVICE_HOST is set) but ${serviceAccountDir}/token does not exist: mount the ServiceAccount's token (automountServiceAccountToken: true), or pass --kcp-kubeconfig <file>`,
    );
    const withToken = await serviceAccount();
    expect(
      configError(() =>
        resolveCluster({ option: '--kcp-kubeconfig', context: 'kcp' }, { env: inPod, serviceAccountDir: withToken }),
      ).message,
    ).toMatch(/^--context: selects a context of a kubeconfig, but there is none .*pass --kcp-kubeconfig <file>/);
  });
});

describe('clusterFromEnvironment: a cluster named without a flag', () => {
  it('is KUBECONFIG set, or a Pod with its service host and port; an empty value names none', () => {
    expect(clusterFromEnvironment({ env: { KUBECONFIG: '/k/config' } })).toBe(true);
    expect(
      clusterFromEnvironment({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' } }),
    ).toBe(true);
    expect(clusterFromEnvironment({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' } })).toBe(false);
    expect(clusterFromEnvironment({ env: { KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' } })).toBe(false);
    expect(clusterFromEnvironment({ env: {} })).toBe(false);
  });
});

describe('resolveCluster: the context', () => {
  it('selects the named context, and refuses an unknown one listing those there are', async () => {
    const path = await dir.write(
      'two.yaml',
      `apiVersion: v1
kind: Config
clusters: [{name: a, cluster: {server: "https://a.example"}}, {name: b, cluster: {server: "https://b.example"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: ctx-a, context: {cluster: a, user: u}}, {name: ctx-b, context: {cluster: b, user: u}}]
current-context: ctx-a
`,
    );
    const options = { kubeconfig: path, option: '--garden-kubeconfig', contextOption: '--garden-context' };
    expect(resolveCluster(options).current().getCurrentCluster()?.server).toBe('https://a.example');
    expect(
      resolveCluster({ ...options, context: 'ctx-b' })
        .current()
        .getCurrentCluster()?.server,
    ).toBe('https://b.example');
    expect(configError(() => resolveCluster({ ...options, context: 'ctx-c' })).message).toBe(
      `--garden-context: context ctx-c is not in ${path}; pass one of its contexts: ctx-a, ctx-b`,
    );
  });

  it('refuses a kubeconfig without current-context unless a context is named', async () => {
    const path = await dir.write('none.yaml', kubeconfig({ context: 'only', current: null }));
    expect(configError(() => resolveCluster({ kubeconfig: path, option: '--kcp-kubeconfig' })).message).toBe(
      `--kcp-kubeconfig: ${path} has no current-context; pass --context <name> (its contexts: only)`,
    );
    expect(token(resolveCluster({ kubeconfig: path, option: '--kcp-kubeconfig', context: 'only' }))).toBe(
      'token-of-only',
    );
  });

  it('never quotes the file in an error: a broken kubeconfig is named, its token is not', async () => {
    const path = await dir.write(
      'broken.yaml',
      'apiVersion: v1\nusers: [{name: u, user: {token: super-secret-token}}]\n  clusters: [\n',
    );
    const error = configError(() => resolveCluster({ kubeconfig: path, option: '--kcp-kubeconfig' }));
    expect(error.message).toMatch(new RegExp(`^--kcp-kubeconfig: ${path} is not a usable kubeconfig: `));
    expect(error.message).not.toContain('super-secret-token');
  });
});

describe('resolveCluster: rotation', () => {
  it('re-reads a kubeconfig Secret the kubelet swapped, once the last look is older than checkEveryMs', async () => {
    const mount = join(dir.path, 'garden-secret');
    await kubeletWrite(mount, { kubeconfig: kubeconfig({ token: 'one' }) });
    let now = 1_000;
    const environment: ClusterEnvironment = { env: {}, checkEveryMs: 10_000, now: () => now };
    const source = resolveCluster(
      { kubeconfig: join(mount, 'kubeconfig'), option: '--garden-kubeconfig' },
      environment,
    );
    const before = source.identity();
    await kubeletWrite(mount, { kubeconfig: kubeconfig({ token: 'two' }) });
    now += 9_999;
    expect(token(source)).toBe('one'); // not looked at yet: the hot path compares a clock only
    now += 1;
    expect(token(source)).toBe('two');
    // The same cluster: caches keyed on it keep what they hold; another server is another cluster.
    expect(source.identity()).toBe(before);
    expect(source.refresh()).toBe(false); // nothing changed since
    await kubeletWrite(mount, { kubeconfig: kubeconfig({ token: 'two', server: 'https://other.example:443' }) });
    expect(source.refresh()).toBe(true);
    expect(source.identity()).not.toBe(before);
  });

  it('keeps the last good credentials while the file does not parse, and says why', async () => {
    const path = await dir.write('garden.yaml', kubeconfig({ token: 'one' }));
    const source = resolveCluster({ kubeconfig: path, option: '--garden-kubeconfig' }, { env: {}, checkEveryMs: 0 });
    await writeFile(path, 'apiVersion: v1\nusers: [{name: u, user: {token: half-written');
    expect(token(source)).toBe('one');
    expect(source.problem()).toMatch(
      new RegExp(`^${path} changed but cannot be used: ${path} is not a usable kubeconfig`),
    );
    expect(source.problem()).not.toContain('half-written');
    await writeFile(path, kubeconfig({ token: 'two' }));
    expect(source.refresh()).toBe(true);
    expect(token(source)).toBe('two');
    expect(source.problem()).toBeUndefined();
  });

  it("follows the ServiceAccount's rotated token, and its identity stays (the caches need not start over)", async () => {
    const serviceAccountDir = await serviceAccount();
    const source = resolveCluster({ option: '--kcp-kubeconfig' }, { env: inPod, serviceAccountDir, checkEveryMs: 0 });
    const identity = source.identity();
    await kubeletWrite(serviceAccountDir, { token: 'sa-token-2', 'ca.crt': 'CA-1', namespace: 'kimops-system' });
    expect(token(source)).toBe('sa-token-2');
    expect(source.identity()).toBe(identity);
    await kubeletWrite(serviceAccountDir, { token: 'sa-token-2', 'ca.crt': 'CA-2', namespace: 'kimops-system' });
    expect(source.refresh()).toBe(true);
    expect(source.identity()).not.toBe(identity);
  });
});
