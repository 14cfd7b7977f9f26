// `kimops apply`: sync the landscape repo's main to the Garden, once or watching (issue 6).
// The command's options and help; it runs cli/apply.ts.
import { Option, type Command } from 'commander';
import { GITHUB_API } from '../../adapters/forge/github-api.js';
import { DEFAULT_HOST } from '../../adapters/loopback.js';
import { OWNERSHIP_LABEL, OWNERSHIP_VALUE } from '../../model/contract.js';
import { EXIT, type CliIo } from '../cli-io.js';
import {
  GIT_TOKEN_SOURCES,
  GITHUB_APP_ENV,
  GITHUB_TOKEN_SOURCES,
  sourcesText,
  WEBHOOK_SECRET_ENV,
} from '../environment.js';
import { contextOption, gardenContextOption, requireWatchFor, withServiceOptions } from '../service-options.js';
import {
  DEFAULT_INTERVAL_SECONDS,
  allowExampleLandscapeOption,
  landscapeOption,
  repoOption,
  cacheDirOption,
} from '../options.js';
import type { ApplyOptions } from '../apply.js';

const HELP = `
Syncs one commit of the landscape repo's main to the Garden: every Shoot under shoots/ (its companions,
the structured-auth ConfigMaps, first) is server-side applied to garden-<project> as field manager
kimops, labelled ${OWNERSHIP_LABEL}=${OWNERSHIP_VALUE} and annotated with the commit. A Shoot
whose apply would change nothing gets no request. A labelled Shoot whose folder is gone from main is
deleted: confirmation.gardener.cloud/deletion first, then DELETE, its companions once Gardener has
removed it (a later sync cleans them up if it has not yet). kimops.yaml's massDeletion guard refuses a
commit that deletes too many Shoots at once: then nothing is written.

--landscape defaults to the landscape.yaml on the repo's main (kimops init commits it); when both are
there they must name the same landscape, and the --landscape given is used.

--repo is a local bare repository (made by kimops init) or the https URL of a remote one (main is
fetched into --cache-dir; a token for git comes from the first set of ${sourcesText(GIT_TOKEN_SOURCES)}).

--dry-run prints the plan (per Shoot: the action and the field paths that change) and writes nothing.
--watch syncs every --interval seconds (each sync works on main's newest commit and writes nothing when
it is in sync) until SIGINT or SIGTERM; a failed sync is reported and retried with backoff. It keeps the
Shoots and companions in caches kept by WATCH (one LIST each at start) and reads only the Shoot folders
that changed: a sync that finds nothing to do makes no request at all.
For production, run the compiled form: npm run build, then node dist/cli/kimops.js apply …
--webhook-port (with --watch) also listens for GitHub webhook deliveries (content type application/json,
the push event) on --webhook-host (default ${DEFAULT_HOST}): a push to main whose X-Hub-Signature-256
matches the secret in ${WEBHOOK_SECRET_ENV} starts a sync at once; polling goes on. The receiver speaks plain
HTTP: put a reverse proxy or ingress that terminates TLS in front of it. With --watch on a local repo,
main is watched on disk as well: a merge (kimops pr merge, the generator's auto-merge, a git push into
it) starts a sync at once.

--forge reports each sync back where the change was reviewed: each commit of main a sync brings gets the
commit status kimops/apply (pending while it is applied and Gardener reconciles, then success or failure
with the Shoot's last operation), and the pull request that merged it one comment, updated as Gardener
progresses: applied when, to which Garden, reconciled and Ready when. local: the repo's own records (kimops
pr show); github: the https --repo on GitHub, with a token from the first set of
${sourcesText(GITHUB_TOKEN_SOURCES)};
or a GitHub App (${Object.values(GITHUB_APP_ENV).join(', ')}).
Only what changed is written (what is there is read first); a forge that fails never fails or delays a
sync: it is logged and tried again after the next one. Without --forge nothing is reported.

Exit codes (--once): 0 in sync; 1 some Shoots failed (each named with the server's message and the fix), were
held back by problems in the repo, or the mass-deletion guard refused the commit; 2 usage or
configuration error; 69 the Garden or the git server could not be reached, run again.

Examples:
  kimops apply --landscape dev --repo ./landscape-dev.git --garden-kubeconfig garden.yaml --once --dry-run
  kimops apply --landscape dev --repo ./landscape-dev.git --garden-kubeconfig garden.yaml --once
  GITHUB_TOKEN=… kimops apply --repo https://github.com/acme/landscape-prod.git --garden-kubeconfig garden.yaml \\
    --forge github --watch --webhook-port 8080`;

export function registerApply(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const declared = program
    .command('apply')
    .description("sync the landscape repo's main to the Shoots in the Garden")
    .addOption(landscapeOption())
    .addOption(allowExampleLandscapeOption())
    .addOption(repoOption())
    .addOption(new Option('--garden-kubeconfig <file>', 'the Garden to write the Shoots to').makeOptionMandatory())
    .addOption(gardenContextOption())
    .option(
      '--kcp-kubeconfig <file>',
      "with --leader-elect: the KCP cluster holding the Lease (default: KUBECONFIG, else the pod's ServiceAccount)",
    )
    .addOption(contextOption())
    .addOption(cacheDirOption())
    .addOption(new Option('--once', 'one sync, then exit').conflicts('watch'))
    .option('--watch', 'sync every --interval until stopped')
    .option('--interval <seconds>', 'with --watch: how often main is synced', String(DEFAULT_INTERVAL_SECONDS))
    .option('--dry-run', 'print the plan, write nothing')
    .option(
      '--shadow',
      'compute and report every sync like --dry-run, write nothing; with --watch, for running beside KIM before the take-over',
    )
    .option('--allow-mass-deletion <n>', 'confirm up to n deletions beyond kimops.yaml massDeletion')
    .option(
      '--webhook-port <port>',
      `with --watch: receive GitHub push webhooks here (secret from ${WEBHOOK_SECRET_ENV})`,
    )
    .option(
      '--webhook-host <address>',
      'with --webhook-port: the address to listen on (TLS is terminated in front of it)',
      DEFAULT_HOST,
    )
    .option('--metrics-port <port>', 'with --watch: serve Prometheus metrics at /metrics, and /healthz and /readyz')
    .option('--metrics-host <address>', 'with --metrics-port: the address to listen on', DEFAULT_HOST)
    .option(
      '--plan-cache <file>',
      'where the plan of unchanged Shoots is kept between runs (default: ~/.cache/kimops/plans/<hash>.json; safe to delete)',
    )
    .option('--no-plan-cache', 'plan every Shoot in full at start, keep nothing on disk')
    .addOption(
      new Option(
        '--forge <kind>',
        "report each sync to the PR that merged it: the repo's own records (local) or GitHub (default: no report)",
      ).choices(['local', 'github']),
    )
    .option(
      '--github-api-url <url>',
      'with --forge github: the GitHub API (GitHub Enterprise: https://<host>/api/v3)',
      GITHUB_API,
    )
    .option(
      '--github-repo <owner/name>',
      "with --forge github: the repository (default: the URL's last two path segments)",
    );
  withServiceOptions(declared)
    .addHelpText('after', HELP)
    .action(async (options: ApplyOptions, command: Command) => {
      if (!options.once && !options.watch) command.error('error: pass --once or --watch', { exitCode: EXIT.usage });
      // Only a sync that writes has something to report.
      if (options.forge !== undefined && (options.dryRun || options.shadow))
        command.error('error: --forge reports what a sync wrote: leave it out with --dry-run or --shadow', {
          exitCode: EXIT.usage,
        });
      if (!options.watch) {
        if (options.webhookPort !== undefined)
          command.error('error: --webhook-port needs --watch', { exitCode: EXIT.usage });
        requireWatchFor(options, command);
        const { applyOnce } = await import('../apply.js');
        setExitCode(await applyOnce(options, io));
        return;
      }
      // An approval of extra deletions is for the commit a human looked at, not for every later one.
      if (options.allowMassDeletion !== undefined)
        command.error('error: --allow-mass-deletion approves one commit: use it with --once', { exitCode: EXIT.usage });
      const { applyWatching } = await import('../apply.js');
      setExitCode(await applyWatching(options, io));
    });
}
