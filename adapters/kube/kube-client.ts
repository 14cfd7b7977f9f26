// The one HTTP client for Kubernetes-style APIs (KCP cluster and Garden). Authentication comes from
// a kubeconfig or the Pod's ServiceAccount (kubeconfig-source.ts: resolved as kubectl does, re-read as
// they rotate) through @kubernetes/client-node; requests are plain node:https so that any path —
// subresources such as /status or /adminkubeconfig included — is reachable with one code path.
// Expected failures (404, 409, 422, unreachable server) are values, not exceptions.
import * as http from 'node:http';
import * as https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../model/kube-object.js';
import {
  fixedSource,
  resolveCluster,
  type ClusterEnvironment,
  type ClusterOptions,
  type CredentialSource,
} from './kubeconfig-source.js';
import { resourcePath, type ObjectRef } from './resources.js';
import { describeFailure, fixFor, type ApiStatus, type KubeResult } from '../../model/kube-result.js';

interface RequestOptions {
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | undefined>;
  /** Ends the request early (an informer stopping mid-list); the result is then an unreachable value. */
  signal?: AbortSignal;
  /** What to ask the server for instead of the whole objects (ListPageOptions.metadataOnly). */
  accept?: string;
}

/**
 * Objects' metadata without their data, as kubectl's `--output name` asks: the server answers a
 * PartialObjectMetadataList, or, where it cannot, the plain list.
 */
const METADATA_ONLY = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/**
 * How long one request (not a watch) may take before it counts as unreachable. kube-apiserver ends a request
 * it has not answered after its own `--request-timeout` (1 min by default) with a 504, so a request still open
 * well past that is a connection nobody answers on (a hung proxy, a half-open TCP connection): without a
 * deadline a LIST, and the informer or sync waiting on it, would wait forever.
 */
const REQUEST_DEADLINE_MS = 90_000;

/** One page of a LIST: `metadata.continue` is set while more pages follow. */
export interface ListPage<T> {
  /** null for an empty PartialObjectMetadataList (metadataOnly). */
  items: T[] | null;
  metadata: { resourceVersion?: string; continue?: string };
}

export interface ListAllOptions extends Omit<ListPageOptions, 'continue'> {
  /**
   * Applied to each item as its page arrives: a caller that keeps only part of each object (10,000 Shoots'
   * managedFields and status are most of their size) then never holds every page's full objects at once.
   */
  map?: (item: KubeObject) => KubeObject;
}

export type ListAllResult<T> =
  { ok: true; items: T[]; resourceVersion: string | undefined } | { ok: false; status: number; message: string };

export interface ListPageOptions {
  labelSelector?: string;
  limit?: number;
  continue?: string;
  signal?: AbortSignal;
  /**
   * Only each object's metadata crosses the wire: a reader of Secrets' annotations (`kimops status`) never
   * receives their data. Kubernetes RBAC cannot narrow `list` that way; the request can.
   */
  metadataOnly?: boolean;
}

/** Watch event types an observer sees; `ERROR` events end the watch and become its `WatchEnd`. */
type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T> {
  type: WatchEventType;
  /** For BOOKMARK only `metadata.resourceVersion` is meaningful. */
  object: T;
}

export interface WatchOptions {
  resourceVersion?: string;
  /** The server ends the watch after this long (it then ends as `closed`). */
  timeoutSeconds?: number;
  labelSelector?: string;
  /** Called once the server has accepted the watch (200), before any event. */
  onOpen?: () => void;
}

/**
 * How a watch ended. `closed`: the server ended the stream (its timeoutSeconds), resume from the last
 * resourceVersion. `gone`: that resourceVersion is too old (410), list again. `aborted`: the caller's
 * signal. `failed`: anything else, with a message naming the server, the kubeconfig and the fix.
 */
export type WatchEnd =
  | { reason: 'closed' }
  | { reason: 'gone'; message: string }
  | { reason: 'aborted' }
  | { reason: 'failed'; status: number; message: string };

/** Server-side apply, merge patch and JSON patch, as Kubernetes names their content types. */
export const CONTENT_TYPE = {
  json: 'application/json',
  apply: 'application/apply-patch+yaml',
  mergePatch: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
} as const;

export class KubeClient {
  /** One keep-alive agent per set of TLS credentials: without it every request pays a new TCP and TLS handshake. */
  private pooled?: { key: string; agent: http.Agent };

  private constructor(
    /** The credentials, kept current: a rotated kubeconfig or ServiceAccount token is used from the next request on. */
    private readonly source: CredentialSource,
    /** Names the API in messages, e.g. the kubeconfig path. */
    readonly label: string,
    /** REQUEST_DEADLINE_MS unless a test needs a shorter one. */
    private readonly deadlineMs = REQUEST_DEADLINE_MS,
  ) {}

  /**
   * The kubeconfig's credentials on `options` (client-node), with its per-call agent swapped for a pooled
   * keep-alive one carrying the same TLS material. A kubeconfig with a proxy keeps client-node's agent (it
   * knows how to reach the proxy); rotated credentials (an exec plugin's new certificate) get a new agent.
   */
  private async authorize(config: KubeConfig, options: https.RequestOptions): Promise<void> {
    await config.applyToHTTPSOptions(options);
    const cluster = config.getCurrentCluster();
    if (cluster?.proxyUrl) return;
    const plain = (cluster?.server ?? '').startsWith('http:');
    const tls = {
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      pfx: options.pfx,
      passphrase: options.passphrase,
      rejectUnauthorized: options.rejectUnauthorized,
      servername: options.servername,
    };
    const key = JSON.stringify({ plain, tls }, (_name, value: unknown) =>
      Buffer.isBuffer(value) ? value.toString('base64') : value,
    );
    if (this.pooled?.key !== key) {
      this.pooled?.agent.destroy();
      this.pooled = {
        key,
        agent: plain ? new http.Agent({ keepAlive: true }) : new https.Agent({ ...tls, keepAlive: true }),
      };
    }
    options.agent = this.pooled.agent;
  }

  /**
   * The client every command uses for one cluster, resolved as kubectl does: `kubeconfig` (the command's
   * flag), else the KUBECONFIG files, else the Pod's ServiceAccount; `context` selected. Its credentials
   * follow the files as they rotate (kubeconfig-source.ts). A ConfigError names the flag and the fix.
   */
  static forCluster(
    options: ClusterOptions,
    environment: ClusterEnvironment & { deadlineMs?: number } = {},
  ): KubeClient {
    return KubeClient.fromSource(resolveCluster(options, environment), environment);
  }

  /** A client on credentials already resolved (several clients in turn on one source: informer-factory.ts). */
  static fromSource(source: CredentialSource, options: { deadlineMs?: number } = {}): KubeClient {
    return new KubeClient(source, source.label, options.deadlineMs);
  }

  /** A kubeconfig file read once, as it is (scripts and tests on the test plane). */
  static fromKubeconfigFile(path: string, options: { deadlineMs?: number } = {}): KubeClient {
    const config = new KubeConfig();
    config.loadFromFile(path);
    return new KubeClient(fixedSource(config, path), path, options.deadlineMs);
  }

  /** The client for a kubeconfig a user named with `option`; a missing or broken file is a ConfigError saying so. */
  static fromKubeconfigOption(path: string, option: string): KubeClient {
    return KubeClient.forCluster({ kubeconfig: path, option });
  }

  /** A client from a kubeconfig already in memory; `label` names it in messages. */
  static fromKubeConfig(config: KubeConfig, label: string, options: { deadlineMs?: number } = {}): KubeClient {
    return new KubeClient(fixedSource(config, label), label, options.deadlineMs);
  }

  /** Closes the pooled connections: a client made per run or per sync leaves no idle sockets behind. */
  close(): void {
    this.pooled?.agent.destroy();
    this.pooled = undefined;
  }

  get server(): string {
    return this.source.current().getCurrentCluster()?.server ?? '';
  }

  /**
   * After a 401 the credential files are read at once; when they changed (a revoked token whose successor is
   * already mounted) the request is sent once more. Safe for any method: a request refused by authentication
   * did nothing. A refusal that stays is returned with why the files could not be used, if they could not.
   */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<KubeResult<T>> {
    const used = this.source.current();
    const first = await this.requestOnce<T>(method, path, options);
    if (first.ok || first.status !== 401) return first;
    if (this.renewedSince(used)) return this.requestOnce<T>(method, path, options);
    const problem = this.source.problem();
    return problem === undefined
      ? first
      : { ...first, error: { ...first.error, message: `${first.error.message ?? 'Unauthorized'} (${problem})` } };
  }

  /**
   * The credentials changed since a request read `used`: the files changed now, or a concurrent request's 401 (an
   * informer's watch, say) already read them — then this request's refusal is the old token's, not the new one's.
   */
  private renewedSince(used: KubeConfig): boolean {
    return this.source.refresh() || this.source.current() !== used;
  }

  private async requestOnce<T>(method: string, path: string, options: RequestOptions): Promise<KubeResult<T>> {
    const config = this.source.current();
    const url = new URL(path, config.getCurrentCluster()?.server ?? '');
    for (const [key, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, value);
    const requestOptions: https.RequestOptions = { method, headers: { Accept: options.accept ?? 'application/json' } };
    try {
      await this.authorize(config, requestOptions);
    } catch (error) {
      // An exec plugin that fails, an http:// server without insecure-skip-tls-verify: a value like any failure, never a throw out of a watch loop.
      return {
        ok: false,
        status: 0,
        error: {
          message: `kubeconfig ${this.label}: cannot prepare credentials for ${url.origin}: ${(error as Error).message} — check the kubeconfig's cluster and user entries`,
        },
      };
    }
    if (options.signal) requestOptions.signal = options.signal;
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    if (payload !== undefined) {
      requestOptions.headers = { ...requestOptions.headers, 'Content-Type': options.contentType ?? CONTENT_TYPE.json };
    }
    return new Promise((resolve) => {
      const transport = url.protocol === 'http:' ? http : https;
      // The deadline covers the whole exchange, the body included: a server that sends headers and then stalls is as hung as one that never answers.
      const timedOut = new Error(`no answer within ${this.deadlineMs / 1000} s (${method} ${url.pathname})`);
      let expired = false;
      const deadline = setTimeout(() => {
        expired = true;
        req.destroy(timedOut);
      }, this.deadlineMs);
      const settle = (result: KubeResult<T>) => {
        clearTimeout(deadline);
        resolve(result);
      };
      const failed = (error: Error) => settle(unreachable(this.label, url, expired ? timedOut : error));
      const req = transport.request(url, requestOptions, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => settle(resultOf(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
        res.on('error', failed);
        // A body cut off (the deadline, a dropped connection) may end in 'close' alone.
        res.on('close', () => {
          if (!res.complete) failed(new Error('connection closed before the answer was complete'));
        });
      });
      req.on('error', failed);
      req.end(payload);
    });
  }

  get<T extends KubeObject>(ref: ObjectRef, subresource?: string): Promise<KubeResult<T>> {
    return this.request<T>('GET', resourcePath(ref, subresource));
  }

  list<T extends KubeObject>(
    ref: Omit<ObjectRef, 'name'>,
    labelSelector?: string,
  ): Promise<KubeResult<{ items: T[]; metadata: { resourceVersion?: string } }>> {
    return this.request('GET', resourcePath(ref), { query: { labelSelector } });
  }

  /** One page of a LIST; the caller follows `metadata.continue` (see adapters/kube/informer.ts). */
  listPage<T extends KubeObject>(
    ref: Omit<ObjectRef, 'name'>,
    options: ListPageOptions = {},
  ): Promise<KubeResult<ListPage<T>>> {
    const { labelSelector, limit, signal, metadataOnly } = options;
    return this.request('GET', resourcePath({ ...ref, name: undefined }), {
      query: { labelSelector, limit: limit === undefined ? undefined : String(limit), continue: options.continue },
      signal,
      ...(metadataOnly && { accept: METADATA_ONLY }),
    });
  }

  /**
   * Every page of a list (`limit` + `continue`) as one snapshot. A failure is one line naming the
   * resource, the server, the kubeconfig and the fix.
   */
  async listAll<T extends KubeObject>(
    ref: Omit<ObjectRef, 'name'>,
    options: ListAllOptions = {},
  ): Promise<ListAllResult<T>> {
    const { map, ...pageOptions } = options;
    const items: T[] = [];
    const path = resourcePath({ ...ref, name: undefined });
    let next: string | undefined;
    for (;;) {
      const page: KubeResult<ListPage<KubeObject>> = await this.listPage<KubeObject>(ref, {
        ...pageOptions,
        continue: next,
      });
      if (!page.ok) {
        const fix = page.status === 0 ? '' : ` — ${fixFor(page.status, path)}`;
        return {
          ok: false,
          status: page.status,
          message: `list ${path} on ${this.server} (kubeconfig ${this.label}): ${describeFailure(page)}${fix}`,
        };
      }
      // A PartialObjectMetadataList of nothing says `items: null` (Go's nil slice), a plain list `[]`.
      for (const item of page.body.items ?? []) items.push((map ? map(item) : item) as T);
      next = page.body.metadata.continue || undefined;
      // Every page carries the resourceVersion of the first page's snapshot.
      if (!next) return { ok: true, items, resourceVersion: page.body.metadata.resourceVersion };
    }
  }

  /**
   * WATCH from `options.resourceVersion` with bookmarks, calling `onEvent` for each event of the
   * newline-delimited JSON stream (`onEvent` must not throw). Resolves with how the watch ended;
   * never rejects for failures a server or network can cause. A 401 is retried once when the credential files
   * changed (as `request`), so an informer reconnects with a rotated token without a failed attempt.
   */
  async watch<T extends KubeObject>(
    ref: Omit<ObjectRef, 'name'>,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
    signal?: AbortSignal,
  ): Promise<WatchEnd> {
    const used = this.source.current();
    const first = await this.watchOnce(ref, options, onEvent, signal);
    if (first.reason !== 'failed' || first.status !== 401) return first;
    if (this.renewedSince(used)) return this.watchOnce(ref, options, onEvent, signal);
    const problem = this.source.problem();
    return problem === undefined ? first : { ...first, message: `${first.message} (${problem})` };
  }

  private async watchOnce<T extends KubeObject>(
    ref: Omit<ObjectRef, 'name'>,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
    signal?: AbortSignal,
  ): Promise<WatchEnd> {
    const config = this.source.current();
    const url = new URL(resourcePath({ ...ref, name: undefined }), config.getCurrentCluster()?.server ?? '');
    const query: Record<string, string | undefined> = {
      watch: '1',
      allowWatchBookmarks: 'true',
      resourceVersion: options.resourceVersion,
      timeoutSeconds: options.timeoutSeconds === undefined ? undefined : String(options.timeoutSeconds),
      labelSelector: options.labelSelector,
    };
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
    const requestOptions: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
    try {
      await this.authorize(config, requestOptions);
    } catch (error) {
      return {
        reason: 'failed',
        status: 0,
        message: `kubeconfig ${this.label}: cannot prepare credentials: ${(error as Error).message} — check the kubeconfig's user entry`,
      };
    }
    if (signal?.aborted) return { reason: 'aborted' };
    const what = `watch ${url.pathname} on ${url.origin} (kubeconfig ${this.label})`;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (end: WatchEnd, destroy = true) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (destroy) req.destroy();
        resolve(end);
      };
      const onAbort = () => settle({ reason: 'aborted' });
      const failed = (status: number, detail: string): WatchEnd => ({
        reason: 'failed',
        status,
        message: `${what}: ${detail}`,
      });
      // One JSON event per line; an ERROR event or a line that is not JSON ends the watch.
      const handleLine = (line: string): void => {
        let event: { type?: string; object?: unknown };
        try {
          event = JSON.parse(line) as typeof event;
        } catch {
          settle(
            failed(
              0,
              `unreadable event ${JSON.stringify(line.slice(0, 200))} — is ${url.origin} a Kubernetes API server?`,
            ),
          );
          return;
        }
        if (event.type === 'ERROR') {
          const status = (event.object ?? {}) as ApiStatus;
          if (status.code === 410) settle({ reason: 'gone', message: status.message ?? '410 Gone' });
          else
            settle(
              failed(
                status.code ?? 0,
                `${describeFailure({ status: status.code ?? 0, error: status })} — ${fixFor(status.code ?? 0, url.pathname)}`,
              ),
            );
          return;
        }
        if (
          event.type === 'ADDED' ||
          event.type === 'MODIFIED' ||
          event.type === 'DELETED' ||
          event.type === 'BOOKMARK'
        ) {
          onEvent({ type: event.type, object: event.object as T });
        }
        // Unknown types are skipped: a newer server may add some.
      };
      const transport = url.protocol === 'http:' ? http : https;
      const req = transport.request(url, requestOptions, (res) => {
        const status = res.statusCode ?? 0;
        res.setEncoding('utf8'); // decodes multi-byte characters split across chunks
        if (status !== 200) {
          let text = '';
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            const result = resultOf<unknown>(status, text);
            const error = result.ok ? {} : result.error;
            if (status === 410) settle({ reason: 'gone', message: error.message ?? '410 Gone' });
            else settle(failed(status, `${describeFailure({ status, error })} — ${fixFor(status, url.pathname)}`));
          });
          return;
        }
        options.onOpen?.();
        // Events may be split across chunks and chunks may hold several: keep the unfinished tail.
        let buffer = '';
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let newline: number;
          while (!settled && (newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (line) handleLine(line);
          }
        });
        res.on('end', () => {
          if (buffer.trim()) handleLine(buffer.trim());
          settle({ reason: 'closed' }, false);
        });
        res.on('error', (error) =>
          settle(failed(0, `connection lost: ${error.message} — check that the API server runs`)),
        );
        res.on('close', () =>
          settle(
            res.complete
              ? { reason: 'closed' }
              : failed(0, 'connection closed mid-stream — check that the API server runs'),
            false,
          ),
        );
      });
      req.on('error', (error) =>
        settle({ reason: 'failed', status: 0, message: unreachableMessage(this.label, url, error) }),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      req.end();
    });
  }

  create<T extends KubeObject>(object: T, query?: Record<string, string>): Promise<KubeResult<T>> {
    return this.request<T>('POST', resourcePath({ ...object, name: undefined, namespace: object.metadata.namespace }), {
      body: object,
      query,
    });
  }

  /** PUT: an update with optimistic concurrency when metadata.resourceVersion is set. */
  replace<T extends KubeObject>(object: T, subresource?: string): Promise<KubeResult<T>> {
    return this.request<T>('PUT', resourcePath(refOf(object), subresource), { body: object });
  }

  /** Server-side apply as `fieldManager`. */
  apply<T extends KubeObject>(
    object: T,
    fieldManager: string,
    options: { force?: boolean; dryRun?: boolean } = {},
  ): Promise<KubeResult<T>> {
    return this.request<T>('PATCH', resourcePath(refOf(object)), {
      body: object,
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager, force: options.force ? 'true' : undefined, dryRun: options.dryRun ? 'All' : undefined },
    });
  }

  patch<T extends KubeObject>(
    ref: ObjectRef,
    patch: unknown,
    contentType: string = CONTENT_TYPE.mergePatch,
    subresource?: string,
  ): Promise<KubeResult<T>> {
    return this.request<T>('PATCH', resourcePath(ref, subresource), { body: patch, contentType });
  }

  delete(ref: ObjectRef): Promise<KubeResult<unknown>> {
    return this.request('DELETE', resourcePath(ref));
  }
}

export function refOf(object: KubeObject): ObjectRef {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace,
    name: object.metadata.name,
  };
}

function resultOf<T>(status: number, text: string): KubeResult<T> {
  let body: unknown = text;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page, say): keep the text as the message.
  }
  if (status >= 200 && status < 300) return { ok: true, status, body: body as T };
  const error: ApiStatus =
    typeof body === 'object' && body !== null ? (body as ApiStatus) : { message: String(body).slice(0, 500) };
  return { ok: false, status, error };
}

function unreachable<T>(label: string, url: URL, error: Error): KubeResult<T> {
  return { ok: false, status: 0, error: { message: unreachableMessage(label, url, error) } };
}

function unreachableMessage(label: string, url: URL, error: Error): string {
  return `cannot reach ${url.origin} (kubeconfig ${label}): ${error.message} — ${fixFor(0, url.pathname)}`;
}
