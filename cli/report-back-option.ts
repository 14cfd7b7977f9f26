// `kimops apply --forge`: the forge the applier reports back to (the `kimops/apply` commit status and the sticky
// comment on the merged PR, applier/report-back-writer.ts), built as `generate` builds its own
// (landscape-target.ts: the local forge of a local repo, GitHub for an https URL with the token from the
// environment). No --forge, no report: a sync never needs the forge.
import { firstParents } from '../adapters/git/history.js';
import { ReportBack } from '../applier/report-back-writer.js';
import { SHOOTS_FOLDER } from '../model/contract.js';
import type { CliIo } from './cli-io.js';
import { openLandscapeTarget, type TargetOptions } from './landscape-target.js';
import { logLine } from './logging.js';

export interface ReportForgeOptions extends TargetOptions {
  /** Only a writing sync has something to report. */
  dryRun?: boolean;
  shadow?: boolean;
}

/** The report back `--forge` asks for, or none. */
export async function reportBackOf(options: ReportForgeOptions, io: CliIo): Promise<ReportBack | undefined> {
  if (options.forge === undefined || options.dryRun || options.shadow) return undefined;
  const log = logLine(io);
  const { repo, forge } = await openLandscapeTarget(options, (line) => log(line, {}, 'warn'));
  return new ReportBack({
    forge,
    repo: {
      firstParents: (from, limits) => firstParents(repo.gitdir, from, limits),
      shootTrees: async (commit) => {
        const trees = new Map<string, string>();
        for (const [name, entry] of await repo.listFolder(commit, SHOOTS_FOLDER))
          if (entry.type === 'tree') trees.set(name, entry.oid);
        return trees;
      },
    },
    log,
  });
}
