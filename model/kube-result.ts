// What a Kubernetes API answered, as a value: expected failures (404, 409, 422, an unreachable server)
// are results, not exceptions, so every component decides about them in plain code; and the one way to
// say what went wrong and what a user can do about it.

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

/** What a user can do about a failed call, by HTTP status; `resource` is the path or kind that was asked for. */
export function fixFor(status: number, resource: string): string {
  if (status === 0) return "check that the API server runs and the kubeconfig's server address";
  if (status === 401) return "the kubeconfig's credentials were rejected: renew its token or client certificate";
  if (status === 403) return `grant the kubeconfig's identity list and watch on ${resource}`;
  if (status === 404) return `the API server does not serve ${resource}: install its CRD or API (crds/)`;
  if (status === 429 || status >= 500)
    return 'the API server is overloaded or failing; kimops retries — check its health if this persists';
  return `the API server refused the request for ${resource}; check the kubeconfig and the server version`;
}

/** One line for a failed call: status, reason and Kubernetes' message. */
export function describeFailure(result: { status: number; error: ApiStatus }): string {
  const reason = result.error.reason ? ` ${result.error.reason}` : '';
  return `${result.status || 'unreachable'}${reason}: ${result.error.message ?? 'no message'}`;
}

/** An annotation write: done, or the server's answer (status 0: none came) described, and the fix for its status. */
export type AnnotationWrite = { ok: true } | { ok: false; status: number; message: string; fix: string };
