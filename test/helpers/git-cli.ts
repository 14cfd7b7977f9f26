// The git CLI on one bare repository, with a fixed identity, for tests that build history as git itself does.
import { execFileSync } from 'node:child_process';

const IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

/** Runs `git --git-dir <gitdir> …` and returns its trimmed output. */
export function gitIn(gitdir: string): (...args: string[]) => string {
  return (...args) =>
    execFileSync('git', ['--git-dir', gitdir, ...args], {
      encoding: 'utf8',
      input: '',
      env: { ...process.env, ...IDENTITY },
    }).trim();
}
