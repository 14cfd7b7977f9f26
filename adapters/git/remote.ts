// Fetch and push over HTTP(S) with isomorphic-git. Expected failures — a rejected push, a refused
// token, an unreachable, silent or unknown remote — come back as values naming the remote and the fix,
// so the generator can re-fetch and retry a rejected push instead of crashing or hanging.
import { gitFs as fs } from './git-fs.js';
import git, { Errors, type HttpClient } from 'isomorphic-git';
import http from 'isomorphic-git/http/node';

/**
 * How long one fetch or push may take in all, unless the caller says otherwise. Generous: a first fetch
 * of a landscape repo with thousands of Shoots is a few MB; a server that accepted the connection and
 * then says nothing must still end the call (isomorphic-git's node client has no timeout of its own).
 */
const DEFAULT_REMOTE_TIMEOUT_MS = 60_000;

/** A token for HTTP Basic auth, sent GitHub's way for tokens: user `x-access-token`, the token as password.
 * It works for personal access tokens and GitHub App installation tokens alike (and for Gitea/GitLab). */
export interface RemoteAuth {
  /** The token, or where to get a current one (a GitHub App's installation token expires after an hour). */
  token: string | (() => Promise<string>);
}

type RemoteFailure = 'rejected' | 'auth' | 'not-found' | 'unreachable';

export type RemoteResult =
  /** `oid`: the remote branch's commit after the operation (undefined when a fetched branch does not exist). */
  { ok: true; oid: string | undefined } | { ok: false; reason: RemoteFailure; message: string };

interface RemoteCall {
  gitdir: string;
  cache: object;
  url: string;
  branch: string;
  auth?: RemoteAuth | undefined;
  /** The whole operation's deadline; DEFAULT_REMOTE_TIMEOUT_MS when absent. */
  timeoutMs?: number | undefined;
}

/** Fetched branches land under refs/remotes/origin/ whatever the URL; isomorphic-git needs the refspec in the config. */
const FETCH_REFSPEC = '+refs/heads/*:refs/remotes/origin/*';

export function fetchBranch({ gitdir, cache, url, branch, auth, timeoutMs }: RemoteCall): Promise<RemoteResult> {
  const what = `fetch ${branch} from ${redacted(url)}`;
  return withDeadline(what, timeoutMs, async (client) => {
    try {
      if ((await git.getConfig({ fs, gitdir, path: 'remote.origin.fetch' })) !== FETCH_REFSPEC) {
        await git.setConfig({ fs, gitdir, path: 'remote.origin.fetch', value: FETCH_REFSPEC });
      }
      const result = await git.fetch({
        fs,
        http: client,
        gitdir,
        cache,
        url,
        ref: branch,
        singleBranch: true,
        tags: false,
        onAuth: onAuth(auth),
      });
      return { ok: true, oid: result.fetchHead ?? undefined };
    } catch (error) {
      return failure(error, what);
    }
  });
}

export function pushBranch({
  gitdir,
  cache,
  url,
  branch,
  auth,
  force,
  timeoutMs,
}: RemoteCall & { force?: boolean | undefined }): Promise<RemoteResult> {
  const what = `push ${branch} to ${redacted(url)}`;
  return withDeadline(what, timeoutMs, async (client) => {
    try {
      const result = await git.push({
        fs,
        http: client,
        gitdir,
        cache,
        url,
        ref: branch,
        remoteRef: branch,
        force: force ?? false,
        onAuth: onAuth(auth),
      });
      const refError = Object.values(result.refs).find((r) => !r.ok)?.error;
      if (!result.ok || refError) {
        // The server refused the update itself (a protected branch, a race with another pusher).
        return {
          ok: false,
          reason: 'rejected',
          message: `${what}: the remote refused it (${refError ?? result.error ?? 'no reason given'}); fetch, re-render and push again`,
        };
      }
      return { ok: true, oid: await git.resolveRef({ fs, gitdir, ref: `refs/heads/${branch}` }) };
    } catch (error) {
      return failure(error, what);
    }
  });
}

/** The commit `branch` points at on the remote (undefined when the remote has no such branch), without fetching objects. */
export function remoteBranchHead({
  url,
  branch,
  auth,
  timeoutMs,
}: Omit<RemoteCall, 'gitdir' | 'cache'>): Promise<RemoteResult> {
  const what = `read ${branch} of ${redacted(url)}`;
  return withDeadline(what, timeoutMs, async (client) => {
    try {
      const refs = await git.listServerRefs({
        http: client,
        url,
        prefix: `refs/heads/${branch}`,
        onAuth: onAuth(auth),
      });
      return { ok: true, oid: refs.find((ref) => ref.ref === `refs/heads/${branch}`)?.oid };
    } catch (error) {
      return failure(error, what);
    }
  });
}

/**
 * Runs `operation` with an HTTP client whose requests are aborted at the deadline, and answers
 * `unreachable` then even if the operation has not settled: an abort while a response body streams
 * does not always reach isomorphic-git, and a caller must never wait forever.
 */
async function withDeadline(
  what: string,
  timeoutMs: number | undefined,
  operation: (client: HttpClient) => Promise<RemoteResult>,
): Promise<RemoteResult> {
  const limit = timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
  const controller = new AbortController();
  const client: HttpClient = { request: (request) => http.request({ ...request, signal: controller.signal }) };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<RemoteResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({
        ok: false,
        reason: 'unreachable',
        message: `${what}: no answer within ${limit / 1000} s; check that the server is up and answers, or allow more time (timeoutMs)`,
      });
    }, limit);
  });
  try {
    return await Promise.race([operation(client), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function onAuth(auth: RemoteAuth | undefined) {
  return auth
    ? async () => ({
        username: 'x-access-token',
        password: typeof auth.token === 'string' ? auth.token : await auth.token(),
      })
    : undefined;
}

function failure(error: unknown, what: string): RemoteResult {
  if (error instanceof Errors.PushRejectedError) {
    return {
      ok: false,
      reason: 'rejected',
      message: `${what}: rejected, the remote branch has commits this one lacks; fetch, re-render and push again`,
    };
  }
  if (error instanceof Errors.HttpError) {
    const status = error.data.statusCode;
    if (status === 401 || status === 403) {
      return {
        ok: false,
        reason: 'auth',
        message: `${what}: the remote refused the credentials (HTTP ${status}); check the token and that it may write the repository's contents`,
      };
    }
    if (status === 404)
      return {
        ok: false,
        reason: 'not-found',
        message: `${what}: no repository at this URL (HTTP 404); check the URL`,
      };
    return {
      ok: false,
      reason: 'unreachable',
      message: `${what}: HTTP ${status} ${error.data.statusMessage}; check the URL and the server`,
    };
  }
  if (error instanceof Errors.NotFoundError) {
    return { ok: false, reason: 'not-found', message: `${what}: ${error.message}; check the branch name` };
  }
  const detail = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    reason: 'unreachable',
    message: `${what}: ${detail}; check the URL, the network and that the server runs`,
  };
}

/** The URL without credentials someone may have put into it. */
export function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}
