// A GitHub Actions job run here the way GitHub's runner runs it, for the steps a test can run itself: each `run:`
// step a bash script (`bash --noprofile --norc -eo pipefail`, as `shell: bash` runs) in its working directory, with
// the runner's environment (GITHUB_WORKSPACE, GITHUB_EVENT_NAME, GITHUB_BASE_REF, RUNNER_TEMP, CI=true, …), the
// workflow's, job's and step's `env:`, `${{ … }}` replaced from the contexts given, `if:` decided, a fresh
// GITHUB_STEP_SUMMARY file per step, what a step appends to GITHUB_PATH and GITHUB_ENV passed on to the later
// steps, and the job stopped at the first failing step. A `uses:` step is handed to the test (`action`), which does
// what the action would (the checkout) or checks it is already so (the Node on PATH). An expression or `if:` the
// helper does not know fails the run, so a workflow cannot use more than the test understands.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { parse } from 'yaml';

export interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  'working-directory'?: string;
}

interface Workflow {
  env?: Record<string, string>;
  defaults?: { run?: { shell?: string } };
  jobs: Record<string, { env?: Record<string, string>; steps: WorkflowStep[] }>;
}

export interface StepRun {
  step: WorkflowStep;
  /** Absent: skipped by its `if:`, or after an earlier step failed. */
  code?: number;
  stdout: string;
  stderr: string;
  /** What the step wrote to its GITHUB_STEP_SUMMARY. */
  summary: string;
}

export interface RunnerContext {
  /** The checkout: GITHUB_WORKSPACE, where `run:` steps start. */
  workspace: string;
  /** RUNNER_TEMP, emptied by the caller. */
  temp: string;
  event: 'pull_request' | 'push' | 'schedule';
  /** The pull request's base branch (GITHUB_BASE_REF), for pull_request. */
  baseRef?: string;
  headRef?: string;
  ref: string;
  sha: string;
  repository: string;
  /** The environment the runner itself has (PATH with the Node setup-node put there, HOME, …). */
  hostEnv: Record<string, string>;
  /** Does what a `uses:` step would, or checks it is done; throws when it cannot. */
  action(step: WorkflowStep): Promise<void> | void;
}

/** Runs job `job` of the workflow file at `file`; the steps as they ran, in order. */
export async function runWorkflowJob(file: string, job: string, context: RunnerContext): Promise<StepRun[]> {
  const workflow = parse(await readFile(file, 'utf8')) as Workflow;
  const steps = workflow.jobs[job]?.steps;
  if (!steps) throw new Error(`${file} has no job ${job}`);
  if (workflow.defaults?.run?.shell !== 'bash') throw new Error(`${file}: run steps must say shell: bash`);
  const expressions: Record<string, string> = {
    'github.event_name': context.event,
    'github.base_ref': context.baseRef ?? '',
    'github.head_ref': context.headRef ?? '',
    'github.ref': context.ref,
    'github.sha': context.sha,
    'github.repository': context.repository,
    'github.workspace': context.workspace,
    'runner.temp': context.temp,
    'runner.os': 'Linux',
  };
  const substitute = (text: string) =>
    text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
      const value = expressions[expression];
      if (value === undefined) throw new Error(`${file}: the test runner does not know \${{ ${expression} }}`);
      return value;
    });
  const files = {
    path: join(context.temp, '_runner_file_commands', 'path'),
    env: join(context.temp, '_runner_file_commands', 'env'),
    output: join(context.temp, '_runner_file_commands', 'output'),
  };
  await mkdir(join(context.temp, '_runner_file_commands'), { recursive: true });
  await Promise.all(Object.values(files).map((path) => writeFile(path, '')));
  const runnerEnv: Record<string, string> = {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: context.workspace,
    GITHUB_EVENT_NAME: context.event,
    GITHUB_BASE_REF: context.baseRef ?? '',
    GITHUB_HEAD_REF: context.headRef ?? '',
    GITHUB_REF: context.ref,
    GITHUB_SHA: context.sha,
    GITHUB_REPOSITORY: context.repository,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_JOB: job,
    GITHUB_PATH: files.path,
    GITHUB_ENV: files.env,
    GITHUB_OUTPUT: files.output,
    RUNNER_TEMP: context.temp,
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
  };
  const added: { path: string[]; env: Record<string, string> } = { path: [], env: {} };
  const runs: StepRun[] = [];
  let failed = false;
  for (const [index, step] of steps.entries()) {
    if (failed || !condition(step.if, context.event, file)) {
      runs.push({ step, stdout: '', stderr: '', summary: '' });
      continue;
    }
    if (step.uses !== undefined) {
      await context.action(step);
      runs.push({ step, code: 0, stdout: '', stderr: '', summary: '' });
      continue;
    }
    const summary = join(context.temp, '_runner_file_commands', `step_summary_${index}`);
    await writeFile(summary, '');
    const env = {
      ...context.hostEnv,
      ...Object.fromEntries(
        Object.entries({ ...workflow.env, ...workflow.jobs[job]?.env, ...step.env }).map(([k, v]) => [
          k,
          substitute(String(v)),
        ]),
      ),
      ...added.env,
      ...runnerEnv,
      GITHUB_STEP_SUMMARY: summary,
      PATH: [...added.path, context.hostEnv.PATH ?? ''].join(delimiter),
    };
    const script = join(context.temp, `step_${index}.sh`);
    await writeFile(script, substitute(step.run ?? ''));
    const cwd = step['working-directory'] === undefined ? context.workspace : substitute(step['working-directory']);
    const result = await bash(script, cwd, env);
    runs.push({ step, ...result, summary: await readFile(summary, 'utf8') });
    // The runner reads the file commands after each step; the next steps get them.
    added.path = (await readFile(files.path, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .reverse();
    for (const line of (await readFile(files.env, 'utf8')).split('\n')) {
      const at = line.indexOf('=');
      if (at > 0) added.env[line.slice(0, at)] = line.slice(at + 1);
    }
    failed = result.code !== 0;
  }
  return runs;
}

/** `if:` as the workflows here write it: absent, or `github.event_name == / != '<event>'`. */
function condition(expression: string | undefined, event: string, file: string): boolean {
  if (expression === undefined) return true;
  const match = /^github\.event_name (==|!=) '([a-z_]+)'$/.exec(expression.trim());
  if (!match) throw new Error(`${file}: the test runner does not know if: ${expression}`);
  return match[1] === '==' ? event === match[2] : event !== match[2];
}

function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
