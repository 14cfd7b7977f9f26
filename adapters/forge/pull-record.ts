// Reading the local forge's records back. They live on a branch anyone with push access can edit, so
// each is checked field by field: a damaged record is named with the fix instead of failing somewhere
// later as a TypeError (which the CLI could only report as a bug).
import { ConfigError } from '../../model/errors.js';
import { isJsonObject } from '../../model/json.js';
import type { StatusState } from './forge.js';

interface PullComment {
  /** Unique within its pull request. */
  id: number;
  author: string;
  body: string;
}

export interface CommitStatus {
  context: string;
  state: StatusState;
  description: string;
  targetUrl?: string;
}

/** What is stored per pull request; `PullRequest` is derived from it. */
export interface PullRecord {
  number: number;
  branch: string;
  base: string;
  title: string;
  body: string;
  state: 'open' | 'closed' | 'merged';
  labels: string[];
  /** The branch head when the PR was opened or last updated: what `kimops pr merge` guards on. */
  headSha: string;
  /** Every review verdict in order; a reviewer's latest one counts, as on GitHub. */
  reviews: { reviewer: string; state: 'approved' | 'changes-requested'; commitSha: string }[];
  comments: PullComment[];
  mergeCommit?: string;
  /** When it was opened (RFC 3339); records from before kimops 0.2.0 have none. */
  createdAt?: string;
  /** Set when a human merged past the gate (`kimops pr merge --force --reason`): who and why. */
  forced?: { by: string; reason: string };
}

const OID = /^[0-9a-f]{40}$/;
const STATES = new Set(['open', 'closed', 'merged']);
const REVIEW_STATES = new Set(['approved', 'changes-requested']);
const STATUS_STATES = new Set(['pending', 'success', 'failure', 'error']);

/** `where` names the file (repo, branch and path); `number` is the one its name gives. */
export function parsePullRecord(text: string, where: string, number: number): PullRecord {
  const value = parseJson(text, where);
  const problem = recordProblem(value, number);
  if (problem !== undefined) throw damaged(where, problem);
  return value as unknown as PullRecord;
}

export function parseStatuses(text: string, where: string): CommitStatus[] {
  const value = parseJson(text, where);
  const ok =
    Array.isArray(value) &&
    value.every(
      (s) =>
        isJsonObject(s) &&
        isString(s['context']) &&
        STATUS_STATES.has(s['state'] as string) &&
        isString(s['description']) &&
        (s['targetUrl'] === undefined || isString(s['targetUrl'])),
    );
  if (!ok) throw damaged(where, 'is not a list of commit statuses ({context, state, description})');
  return value as CommitStatus[];
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw damaged(where, `is not valid JSON (${(error as Error).message})`);
  }
}

function damaged(where: string, problem: string): ConfigError {
  return new ConfigError(
    where,
    '',
    `${problem}; the record was edited or damaged: restore it from the branch's history (git log -p on the branch), then run again`,
  );
}

/** The first thing wrong with a record, in words, or undefined. */
function recordProblem(value: unknown, number: number): string | undefined {
  if (!isJsonObject(value)) return 'is not a JSON object';
  if (value['number'] !== number) return `says number ${JSON.stringify(value['number'])}, but its file is #${number}`;
  for (const key of ['branch', 'base', 'title', 'body'] as const)
    if (!isString(value[key])) return `${key}: not a string`;
  if (!STATES.has(value['state'] as string))
    return `state: ${JSON.stringify(value['state'])} is none of open, closed, merged`;
  if (!Array.isArray(value['labels']) || !value['labels'].every(isString)) return 'labels: not a list of strings';
  if (!isOid(value['headSha'])) return 'headSha: not a commit id';
  if (value['mergeCommit'] !== undefined && !isOid(value['mergeCommit'])) return 'mergeCommit: not a commit id';
  const reviews = value['reviews'];
  if (
    !Array.isArray(reviews) ||
    !reviews.every(
      (r) =>
        isJsonObject(r) && isString(r['reviewer']) && REVIEW_STATES.has(r['state'] as string) && isOid(r['commitSha']),
    )
  ) {
    return 'reviews: not a list of {reviewer, state, commitSha}';
  }
  const comments = value['comments'];
  if (
    !Array.isArray(comments) ||
    !comments.every((c) => isJsonObject(c) && Number.isInteger(c['id']) && isString(c['author']) && isString(c['body']))
  ) {
    return 'comments: not a list of {id, author, body}';
  }
  if (
    value['createdAt'] !== undefined &&
    !(isString(value['createdAt']) && !Number.isNaN(Date.parse(value['createdAt'])))
  )
    return 'createdAt: not a time';
  const forced = value['forced'];
  if (forced !== undefined && !(isJsonObject(forced) && isString(forced['by']) && isString(forced['reason'])))
    return 'forced: not {by, reason}';
  return undefined;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isOid = (value: unknown): boolean => typeof value === 'string' && OID.test(value);
