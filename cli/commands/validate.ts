// `kimops validate`: the landscape repo's own check, run by its workflow on every pull request (the generator's
// schema and policy checks, the credentials scan, optionally a server-side dry-run). The command's options and
// help; it runs cli/validate.ts.
import { Option, type Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import type { ValidateOptions } from '../validate.js';

const HELP = `
<repo-dir>: a checkout of a landscape repo (it has kimops.yaml). Its Shoot folders are checked — with
--base only those that changed against that git ref (e.g. origin/main), each with its operation
(create, update against the base's Shoot, delete) — against the Shoot schema and the policy set
kimops.yaml names, with the landscape in the repo's landscape.yaml (the base's kimops.yaml and
landscape.yaml when --base is given, so a pull request cannot pick its own rules; a landscape.yaml the
change edits is checked as a file of it; a repo without landscape.yaml uses the shipped landscape
kimops.yaml names). Files are scanned for credentials: with --base those the
change added or changed (and every file of a changed Shoot's folder), so a pull request is judged on
what it changes; without --base every file, which is how to find a credential already on main (run it on
main, e.g. on each push to main or on a schedule).
<files…>: Shoot manifests outside a landscape repo (files, or folders of .yaml/.yml/.json files), each
Shoot checked as a create; needs --landscape. Input that holds no Shoot at all is refused (exit 2).

--garden-kubeconfig: also a server-side dry-run (apply, dryRun=All) of each created or updated Shoot and
its companions in garden-<project>, reported beside the policies; nothing is written.
--output github: GitHub workflow annotations (::error / ::warning with file and line) and a summary; where
$GITHUB_STEP_SUMMARY names a file (as in a workflow), a Markdown table of the Shoots is appended to it
(Shoot, operation, result, findings). A check that cannot run is an ::error annotation too.

Exit codes: 0 nothing denied (warnings allowed); 1 something denied (a file that cannot be read as YAML
included); 2 usage or configuration error, or files that hold no Shoot (a Runtime, an empty file or
folder); 69 the Garden could not be reached.

Examples:
  kimops validate . --base origin/main --output github        (the landscape repo's workflow)
  kimops validate --landscape dev shoots/c-1/shoot.yaml`;

export function registerValidate(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('validate')
    .description(
      "check a landscape repo's Shoots (or Shoot files) against the schema, the policies and for credentials",
    )
    .argument('[paths...]', 'a landscape repo checkout, or Shoot files', ['.'])
    .option('--base <ref>', 'with a repo: check only the Shoots that changed against this git ref')
    .option('--landscape <name|dir>', "the landscape (default: the repo's landscape.yaml, else kimops.yaml's)")
    .option('--policy-set <name>', "the policy set (default: the repo's kimops.yaml, else default)")
    .addOption(
      new Option('--output <format>', 'text, or GitHub workflow annotations')
        .choices(['text', 'github'])
        .default('text'),
    )
    .option('--garden-kubeconfig <file>', 'also dry-run the changed Shoots against this Garden')
    .addHelpText('after', HELP)
    .action(async (paths: string[], options: ValidateOptions) => {
      const { validate } = await import('../validate.js');
      setExitCode(await validate(paths, options, io));
    });
}
