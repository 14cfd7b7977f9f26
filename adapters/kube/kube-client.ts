// The one HTTP client for Kubernetes-style APIs (KCP cluster and Garden). Authentication comes from
// a kubeconfig through @kubernetes/client-node; requests are plain node:https so that any path —
// subresources such as /status or /adminkubeconfig included — is reachable with one code path.
// Expected failures (404, 409, 422, unreachable server) are values, not exceptions.
import * as http from 'node:http';
import * as https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { resourcePath, type ObjectRef } from './resources.js';

/** Kubernetes' own error body. */
export interface ApiStatus {
  kind?: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { causes?: { field?: string; message?: string; reason?: string }[] };
}

export type KubeResult<T> = { ok: true; status: number; body: T } | { ok: false; status: number; error: ApiStatus };

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [key: string]: unknown };
  [key: string]: unknown;
}

interface RequestOptions {
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | undefined>;
}

/** Server-side apply, merge patch and JSON patch, as Kubernetes names their content types. */
export const CONTENT_TYPE = {
  json: 'application/json',
  apply: 'application/apply-patch+yaml',
  mergePatch: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
} as const;

export class KubeClient {
  private constructor(
    private readonly config: KubeConfig,
    /** Names the API in messages, e.g. the kubeconfig path. */
    readonly label: string,
  ) {}

  static fromKubeconfigFile(path: string): KubeClient {
    const config = new KubeConfig();
    config.loadFromFile(path);
    return new KubeClient(config, path);
  }

  get server(): string {
    return this.config.getCurrentCluster()?.server ?? '';
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<KubeResult<T>> {
    const url = new URL(path, this.server);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, value);
    const requestOptions: https.RequestOptions = { method, headers: { Accept: 'application/json' } };
    await this.config.applyToHTTPSOptions(requestOptions);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    if (payload !== undefined) {
      requestOptions.headers = { ...requestOptions.headers, 'Content-Type': options.contentType ?? CONTENT_TYPE.json };
    }
    return new Promise((resolve) => {
      const transport = url.protocol === 'http:' ? http : https;
      const req = transport.request(url, requestOptions, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(resultOf(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
        res.on('error', (error) => resolve(unreachable(this.label, url, error)));
      });
      req.on('error', (error) => resolve(unreachable(this.label, url, error)));
      req.end(payload);
    });
  }

  get<T extends KubeObject>(ref: ObjectRef, subresource?: string): Promise<KubeResult<T>> {
    return this.request<T>('GET', resourcePath(ref, subresource));
  }

  list<T extends KubeObject>(ref: Omit<ObjectRef, 'name'>, labelSelector?: string): Promise<KubeResult<{ items: T[]; metadata: { resourceVersion?: string } }>> {
    return this.request('GET', resourcePath(ref), { query: { labelSelector } });
  }

  create<T extends KubeObject>(object: T, query?: Record<string, string>): Promise<KubeResult<T>> {
    return this.request<T>('POST', resourcePath({ ...object, name: undefined, namespace: object.metadata.namespace }), { body: object, query });
  }

  /** PUT: an update with optimistic concurrency when metadata.resourceVersion is set. */
  replace<T extends KubeObject>(object: T, subresource?: string): Promise<KubeResult<T>> {
    return this.request<T>('PUT', resourcePath(refOf(object), subresource), { body: object });
  }

  /** Server-side apply as `fieldManager`. */
  apply<T extends KubeObject>(object: T, fieldManager: string, options: { force?: boolean; dryRun?: boolean } = {}): Promise<KubeResult<T>> {
    return this.request<T>('PATCH', resourcePath(refOf(object)), {
      body: object,
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager, force: options.force ? 'true' : undefined, dryRun: options.dryRun ? 'All' : undefined },
    });
  }

  patch<T extends KubeObject>(ref: ObjectRef, patch: unknown, contentType: string = CONTENT_TYPE.mergePatch, subresource?: string): Promise<KubeResult<T>> {
    return this.request<T>('PATCH', resourcePath(ref, subresource), { body: patch, contentType });
  }

  delete(ref: ObjectRef): Promise<KubeResult<unknown>> {
    return this.request('DELETE', resourcePath(ref));
  }
}

export function refOf(object: KubeObject): ObjectRef {
  return { apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace, name: object.metadata.name };
}

function resultOf<T>(status: number, text: string): KubeResult<T> {
  let body: unknown = text;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page, say): keep the text as the message.
  }
  if (status >= 200 && status < 300) return { ok: true, status, body: body as T };
  const error: ApiStatus = typeof body === 'object' && body !== null ? (body as ApiStatus) : { message: String(body).slice(0, 500) };
  return { ok: false, status, error };
}

function unreachable<T>(label: string, url: URL, error: Error): KubeResult<T> {
  return {
    ok: false,
    status: 0,
    error: { message: `cannot reach ${url.origin} (kubeconfig ${label}): ${error.message} — check that the API server runs and the kubeconfig's server address` },
  };
}

/** One line for a failed call: status, reason and Kubernetes' message. */
export function describeFailure(result: { status: number; error: ApiStatus }): string {
  const reason = result.error.reason ? ` ${result.error.reason}` : '';
  return `${result.status || 'unreachable'}${reason}: ${result.error.message ?? 'no message'}`;
}
