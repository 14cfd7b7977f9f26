// The README's first command: the whole generator on the embedded default, in-process, review loop included.
import { execSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../../model/package-root.js';
import { useTempDir } from '../../helpers/temp-dir.js';
import { kimops } from '../../helpers/cli.js';

const dir = useTempDir('demo');
const BIN = packagePath('cli', 'kimops-bin.js');

describe('kimops demo', () => {
  it('merges the 15 creates, holds a disruptive update for approval, merges it once approved, proposes a rollout', async () => {
    const { code, stdout } = await kimops(['demo', '--dir', dir.path]);
    expect(code).toBe(0);
    expect(stdout).toContain('15 proposed (15 merged, 0 awaiting review, 0 blocked)');
    expect(stdout).toMatch(
      /update \(disruptive\) c-78fcc25: #16 opened, await-review: waits for 1 approval by a collaborator \(mergePolicy\.update-disruptive; CODEOWNERS names no owner of its files\), has 0/,
    );
    expect(stdout).toMatch(/`spec\.provider\.workers\[cpu-worker-0\]\.machine\.type` m6i\.large → m6i\.xlarge/);
    expect(stdout).toContain('approved #16 as alice');
    expect(stdout).toMatch(/merged #16 \(kimops\/dev\/c-78fcc25\) into main/);
    expect(stdout).toContain('deleted branch kimops/dev/c-78fcc25');
    expect(stdout).toMatch(
      /#17\tkimops\/dev-rollout\/\S+\t\[dev\] rollout: kubernetes 1\.33\.3 → 1\.34\.1, wave 1\/1, 15 shoots/,
    );

    // Every command the demo prints at the end works as printed, run as printed from another folder.
    const printed = stdout
      .split('\n')
      .filter((line) => line.startsWith(`  node ${BIN} `))
      .map((line) => line.trim());
    expect(printed.map((line) => line.split(' ')[3])).toEqual(['show', 'approve', 'merge']);
    for (const line of printed) execSync(line, { cwd: tmpdir(), stdio: 'pipe' });
    expect((await kimops(['pr', 'list', '--repo', `${dir.path}/landscape-dev.git`])).stdout).not.toContain('#17');
  }, 120_000);
});
