import { describe, expect, it } from 'vitest';
import { type ProblemKind, findProblems, formatProblem, repoIndex } from './check-references.js';

const repo = repoIndex([
  'README.md',
  'docs/design.md',
  'docs/contracts/README.md',
  'docs/contracts/runtime-status.md',
  'docs/adr/0004-change-classes.md',
  'applier/README.md',
  'applier/plan.ts',
  'backfiller/status.ts',
]);

type Case = [name: string, file: string, text: string, expected: [ProblemKind, string][]];

const cases: Case[] = [
  // (a) paths that leave the repository
  [
    'a sibling checkout',
    'applier/plan.ts',
    '// see ../shared/contracts/x.md',
    [['outside-repository', '../shared/contracts/x.md']],
  ],
  [
    'a sibling checkout, two levels up',
    'docs/adr/0004-change-classes.md',
    'in `../../shared/crds/`',
    [['outside-repository', '../../shared/crds/']],
  ],
  [
    'an absolute path of this machine',
    'applier/plan.ts',
    "const p = '/work/shared/DESIGN.md';",
    [['outside-repository', '/work/shared/DESIGN.md']],
  ],
  [
    'a markdown link out of the repository',
    'docs/design.md',
    'see [x](../../other/x.md)',
    [['outside-repository', '../../other/x.md']],
  ],
  [
    'a cited document above the root',
    'applier/plan.ts',
    '// ../../x/runtime-status.md §2',
    [['outside-repository', '../../x/runtime-status.md']],
  ],
  // (b) design and contract documents that are not files here
  ['the design by its title', 'applier/plan.ts', '// (DESIGN §1.4)', [['missing-document', 'DESIGN §']]],
  ['the design by its old file name', 'applier/plan.ts', '// DESIGN.md §5', [['missing-document', 'DESIGN.md']]],
  [
    'a contracts folder that is not docs/contracts',
    'applier/plan.ts',
    '// contracts/runtime-status.md §3',
    [['missing-document', 'contracts/runtime-status.md']],
  ],
  [
    'a contract docs/contracts does not hold',
    'applier/plan.ts',
    '// docs/contracts/kim-converter.md',
    [['missing-document', 'docs/contracts/kim-converter.md']],
  ],
  [
    'a bare cited name no file has',
    'backfiller/status.ts',
    '// kim-converter.md §2',
    [['missing-document', 'kim-converter.md']],
  ],
  [
    'a bare cited name in backticks',
    'README.md',
    '`keb-and-gardener-shoot.md` §A.4',
    [['missing-document', 'keb-and-gardener-shoot.md']],
  ],
  [
    'two in one line',
    'backfiller/status.ts',
    '// contracts/runtime-status.md §1 and DESIGN §1.2',
    [
      ['missing-document', 'DESIGN §'],
      ['missing-document', 'contracts/runtime-status.md'],
    ],
  ],
  // (c) markdown links to missing paths
  ['a link to a missing file', 'applier/README.md', 'see [plan](plan-cache.ts)', [['broken-link', 'plan-cache.ts']]],
  [
    'a link to a missing file with an anchor',
    'docs/design.md',
    '[c](contracts/kim-converter.md#2-pipeline)',
    [['broken-link', 'contracts/kim-converter.md#2-pipeline']],
  ],
  // valid references
  ['the design by its path', 'applier/plan.ts', '// (docs/design.md §1.4), docs/design.md §1.5', []],
  ['a contract by its path', 'backfiller/status.ts', '// docs/contracts/runtime-status.md §1, §2, §4', []],
  ['a bare name some file has', 'backfiller/status.ts', '// runtime-status.md §1', []],
  [
    'a link relative to the file',
    'docs/adr/0004-change-classes.md',
    '[design](../design.md) and [status](../contracts/runtime-status.md#2)',
    [],
  ],
  ['a link to a folder and to the root', 'docs/design.md', '[applier](../applier/) and [readme](/README.md)', []],
  [
    'a link to an anchor or another site',
    'docs/design.md',
    '[x](#14-landscape-repo) [y](https://example.com/DESIGN.md)',
    [],
  ],
  ['an import path inside the repository', 'applier/plan.ts', "import { x } from '../backfiller/status.js';", []],
  ['test data that is no citation', 'applier/plan.ts', "files['shoots/a/notes.md'] = 'x';", []],
  ['a link outside markdown is not read as one', 'applier/plan.ts', '// [x](missing.ts)', []],
  ['the word design', 'applier/plan.ts', '// the design of the plan; Design notes', []],
];

describe('findProblems', () => {
  it.each(cases)('%s', (_name, file, text, expected) => {
    const found = findProblems(file, text, repo).map((problem) => [problem.kind, problem.reference]);
    expect(found).toEqual(expected);
  });

  it('reports the line of each reference', () => {
    const text = 'first\n// DESIGN §2\nthird\n// ../shared/x';
    expect(findProblems('applier/plan.ts', text, repo).map((problem) => problem.line)).toEqual([2, 4]);
  });

  it('names the file, the line, the reference and the fix', () => {
    const [problem] = findProblems('applier/plan.ts', '\n// DESIGN.md §4', repo);
    expect(problem && formatProblem(problem)).toBe(
      'applier/plan.ts:2: reference DESIGN.md names a document that is not in the repository — write it into docs/ and cite that',
    );
  });
});
