import { describe, expect, it } from 'vitest';
import {
  ownedFiles,
  ownersOf,
  parseCodeOwners,
  tallyApprovals,
  teamLookups,
  type TeamMembership,
} from './code-owners.js';

const owner = (text: string, path: string) => ownersOf(parseCodeOwners(text), path).join(' ');
const nobodyInTeams: TeamMembership = () => false;

describe('ownersOf: CODEOWNERS read as GitHub reads it', () => {
  it('lets the last matching line win, and a line without owners leave its files unowned', () => {
    const text = [
      '# the landscape',
      '*            @acme/landscape   # everyone',
      '/shoots/     @acme/sre',
      'shoots/c-2/  @bob',
      '/shoots/c-3/',
    ].join('\n');
    expect(owner(text, 'kimops.yaml')).toBe('@acme/landscape');
    expect(owner(text, 'shoots/c-1/shoot.yaml')).toBe('@acme/sre');
    expect(owner(text, 'shoots/c-2/shoot.yaml')).toBe('@bob');
    expect(owner(text, 'shoots/c-3/shoot.yaml')).toBe('');
  });

  it('anchors a pattern with a leading or inner slash to the root; others match at any depth', () => {
    const text = 'apps/ @any-apps\n/docs/ @root-docs\nbuild/logs @logs\n*.md @md\n';
    expect(owner(text, 'apps/x.yaml')).toBe('@any-apps');
    expect(owner(text, 'deep/apps/x.yaml')).toBe('@any-apps');
    expect(owner(text, 'docs/a.txt')).toBe('@root-docs');
    expect(owner(text, 'x/docs/a.txt')).toBe('');
    expect(owner(text, 'build/logs/today/a.log')).toBe('@logs');
    expect(owner(text, 'x/build/logs/a.log')).toBe('');
    expect(owner(text, 'shoots/c-1/README.md')).toBe('@md');
    expect(owner(text, 'README.mdx')).toBe('');
  });

  it('keeps * and ? inside a folder, lets ** span folders, and gives docs/* only what is directly in docs/', () => {
    const text = 'docs/* @flat\n**/logs @logs\nshoots/c-?/ @short\nshoots/**/secret*.yaml @secrets\nc-? @file\n';
    expect(owner(text, 'docs/a.md')).toBe('@flat');
    expect(owner(text, 'docs/build/a.md')).toBe('');
    expect(owner(text, 'logs/a.log')).toBe('@logs');
    expect(owner(text, 'a/b/logs/c/d.log')).toBe('@logs');
    expect(owner(text, 'shoots/c-1/x/secretbinding.yaml')).toBe('@secrets');
    expect(owner(text, 'shoots/c-1/shoot.yaml')).toBe('@short');
    expect(owner(text, 'shoots/c-10/shoot.yaml')).toBe('');
    // A wildcard name without its trailing slash names files, not what is in a folder it matches.
    expect(owner(text, 'x/c-1')).toBe('@file');
    expect(owner(text, 'x/c-1/shoot.yaml')).toBe('');
  });

  it('skips the lines GitHub skips: negation, ranges, an owner that is none; a dot is no wildcard', () => {
    const text = 'shoots/ @acme/sre\n!shoots/c-1/ @x\nshoots/c-[12]/ @y\nshoots/c-2/ not-an-owner\nkimops.yaml @cfg\n';
    expect(parseCodeOwners(text).map((rule) => rule.pattern)).toEqual(['shoots/', 'kimops.yaml']);
    expect(owner(text, 'shoots/c-1/shoot.yaml')).toBe('@acme/sre');
    expect(owner(text, 'kimopsXyaml')).toBe('');
    expect(owner('\\#odd @hash\n', '#odd')).toBe('@hash');
  });

  it('reads the template without reviewers as naming nobody', () => {
    const template = '# Who reviews\n# No reviewers are named yet\n#   * @<org>/<team>\n';
    expect(parseCodeOwners(template)).toEqual([]);
  });
});

describe('tallyApprovals', () => {
  const rules = parseCodeOwners('/shoots/ @acme/sre @carol\n/shoots/c-2/ @bob ops@example.com\n');

  it('counts every approval where CODEOWNERS owns none of the files: a collaborator is enough', () => {
    expect(tallyApprovals(ownedFiles(rules, ['kimops.yaml']), ['alice', 'Alice', 'bob'], nobodyInTeams)).toEqual({
      count: 2,
      reviewers: { by: 'collaborators' },
      waitingFor: [],
    });
  });

  it("counts a listed user by name (case and @ aside) and a team's members; others and e-mail owners never", () => {
    const owned = ownedFiles(rules, ['shoots/c-1/shoot.yaml']);
    const sre: TeamMembership = (team, reviewer) => team === 'acme/sre' && reviewer === 'dave';
    expect(tallyApprovals(owned, ['CAROL'], nobodyInTeams)).toMatchObject({ count: 1, waitingFor: [] });
    expect(tallyApprovals(owned, ['@carol'], nobodyInTeams).count).toBe(1);
    expect(tallyApprovals(owned, ['dave', 'mallory'], sre)).toEqual({
      count: 1,
      reviewers: { by: 'code-owners', owners: ['@acme/sre', '@carol'] },
      waitingFor: [],
    });
    expect(tallyApprovals(ownedFiles(rules, ['shoots/c-2/shoot.yaml']), ['ops@example.com', 'ops'], sre).count).toBe(0);
  });

  it("wants an approval by an owner of every owned file, as GitHub's code-owner review does", () => {
    const owned = ownedFiles(rules, ['shoots/c-1/shoot.yaml', 'shoots/c-2/shoot.yaml', 'shoots/c-3/shoot.yaml']);
    expect(owned).toEqual([
      { owners: ['@acme/sre', '@carol'], paths: ['shoots/c-1/shoot.yaml', 'shoots/c-3/shoot.yaml'] },
      { owners: ['@bob', 'ops@example.com'], paths: ['shoots/c-2/shoot.yaml'] },
    ]);
    const carolOnly = tallyApprovals(owned, ['carol'], nobodyInTeams);
    expect(carolOnly.count).toBe(1);
    expect(carolOnly.waitingFor).toEqual([owned[1]]);
    expect(tallyApprovals(owned, ['carol', 'bob'], nobodyInTeams)).toMatchObject({ count: 2, waitingFor: [] });
  });

  it('asks for the team memberships only of approvers the team could make owners', () => {
    const owned = ownedFiles(rules, ['shoots/c-1/shoot.yaml', 'shoots/c-2/shoot.yaml']);
    expect(teamLookups(owned, ['carol', 'dave', 'dave'])).toEqual([{ team: 'acme/sre', reviewer: 'dave' }]);
    expect(teamLookups(ownedFiles(rules, ['kimops.yaml']), ['dave'])).toEqual([]);
  });
});
