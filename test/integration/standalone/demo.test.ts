// The README's first command: the whole generator on the embedded default, in-process.
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../helpers/temp-dir.js';
import { kimops } from '../../helpers/cli.js';

const dir = useTempDir('demo');

describe('kimops demo', () => {
  it('creates a landscape repo, merges the 12 creates, then shows the update PR for the changed Runtime', async () => {
    const { code, stdout } = await kimops(['demo', '--dir', dir.path]);
    expect(code).toBe(0);
    expect(stdout).toContain('12 proposed (12 merged, 0 awaiting review, 0 blocked)');
    expect(stdout).toContain('#13 [dev] update (non-disruptive): c-78fcc25 [merged]');
    expect(stdout).toMatch(/`spec\.provider\.workers\[cpu-worker-0\]\.maximum` 20 → 25/);
  }, 60_000);
});
