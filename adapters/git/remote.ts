// Fetch and push over HTTP(S) with isomorphic-git. Expected failures — a rejected push, a refused
// token, an unreachable or unknown remote — come back as values naming the remote and the fix, so the
// generator can re-fetch and retry a rejected push instead of crashing.
import fs from 'node:fs';
import git, { Errors } from 'isomorphic-git';
import http from 'isomorphic-git/http/node';

/** A token for HTTP Basic auth, sent GitHub's way for tokens: user `x-access-token`, the token as password.
 * It works for personal access tokens and GitHub App installation tokens alike (and for Gitea/GitLab). */
export interface RemoteAuth {
  token: string;
}

export type RemoteFailure = 'rejected' | 'auth' | 'not-found' | 'unreachable';

export type RemoteResult =
  /** `oid`: the remote branch's commit after the operation (undefined when a fetched branch does not exist). */
  | { ok: true; oid: string | undefined }
  | { ok: false; reason: RemoteFailure; message: string };

interface RemoteCall {
  gitdir: string;
  cache: object;
  url: string;
  branch: string;
  auth?: RemoteAuth | undefined;
}

/** Fetched branches land under refs/remotes/origin/ whatever the URL; isomorphic-git needs the refspec in the config. */
const FETCH_REFSPEC = '+refs/heads/*:refs/remotes/origin/*';

export async function fetchBranch({ gitdir, cache, url, branch, auth }: RemoteCall): Promise<RemoteResult> {
  try {
    if ((await git.getConfig({ fs, gitdir, path: 'remote.origin.fetch' })) !== FETCH_REFSPEC) {
      await git.setConfig({ fs, gitdir, path: 'remote.origin.fetch', value: FETCH_REFSPEC });
    }
    const result = await git.fetch({ fs, http, gitdir, cache, url, ref: branch, singleBranch: true, tags: false, onAuth: onAuth(auth) });
    return { ok: true, oid: result.fetchHead ?? undefined };
  } catch (error) {
    return failure(error, `fetch ${branch} from ${redacted(url)}`);
  }
}

export async function pushBranch({ gitdir, cache, url, branch, auth, force }: RemoteCall & { force?: boolean | undefined }): Promise<RemoteResult> {
  const what = `push ${branch} to ${redacted(url)}`;
  try {
    const result = await git.push({ fs, http, gitdir, cache, url, ref: branch, remoteRef: branch, force: force ?? false, onAuth: onAuth(auth) });
    const refError = Object.values(result.refs).find((r) => !r.ok)?.error;
    if (!result.ok || refError) {
      // The server refused the update itself (a protected branch, a race with another pusher).
      return { ok: false, reason: 'rejected', message: `${what}: the remote refused it (${refError ?? result.error ?? 'no reason given'}); fetch, re-render and push again` };
    }
    return { ok: true, oid: await git.resolveRef({ fs, gitdir, ref: `refs/heads/${branch}` }) };
  } catch (error) {
    return failure(error, what);
  }
}

function onAuth(auth: RemoteAuth | undefined) {
  return auth ? () => ({ username: 'x-access-token', password: auth.token }) : undefined;
}

function failure(error: unknown, what: string): RemoteResult {
  if (error instanceof Errors.PushRejectedError) {
    return { ok: false, reason: 'rejected', message: `${what}: rejected, the remote branch has commits this one lacks; fetch, re-render and push again` };
  }
  if (error instanceof Errors.HttpError) {
    const status = error.data.statusCode;
    if (status === 401 || status === 403) {
      return { ok: false, reason: 'auth', message: `${what}: the remote refused the credentials (HTTP ${status}); check the token and that it may write the repository's contents` };
    }
    if (status === 404) return { ok: false, reason: 'not-found', message: `${what}: no repository at this URL (HTTP 404); check the URL` };
    return { ok: false, reason: 'unreachable', message: `${what}: HTTP ${status} ${error.data.statusMessage}; check the URL and the server` };
  }
  if (error instanceof Errors.NotFoundError) {
    return { ok: false, reason: 'not-found', message: `${what}: ${error.message}; check the branch name` };
  }
  const detail = error instanceof Error ? error.message : String(error);
  return { ok: false, reason: 'unreachable', message: `${what}: ${detail}; check the URL, the network and that the server runs` };
}

/** The URL without credentials someone may have put into it. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}
