import { describe, expect, it } from 'vitest';
import { LEADER_ANNOTATION, LEADER_LABEL, runtimeLeader, shootLeader, withLeader } from './leader.js';
import { parseLandscape } from '../model/landscape-parse.js';
import { readFileSync } from 'node:fs';

const runtime = (labels?: Record<string, string>) => ({ metadata: { name: 'r', ...(labels && { labels }) } });

describe('runtimeLeader', () => {
  it.each<[string, Record<string, string> | undefined, 'kimops' | 'kim' | undefined, 'kimops' | 'kim']>([
    ['no label, no default', undefined, undefined, 'kimops'],
    ['no label, default kim', undefined, 'kim', 'kim'],
    ['no label, default kimops', undefined, 'kimops', 'kimops'],
    ['label kim wins over default kimops', { [LEADER_LABEL]: 'kim' }, 'kimops', 'kim'],
    ['label kimops wins over default kim', { [LEADER_LABEL]: 'kimops' }, 'kim', 'kimops'],
  ])('%s', (_, labels, fallback, expected) => {
    expect(runtimeLeader(runtime(labels), fallback ? { defaultLeader: fallback } : {})).toEqual({ leader: expected });
  });

  it('treats an unreadable label as led by KIM and says which field and how to fix it', () => {
    const result = runtimeLeader(runtime({ [LEADER_LABEL]: 'KIMOPS' }), {});
    expect(result.leader).toBe('kim');
    expect(result.problem?.field).toBe('metadata.labels[kimops.kyma-project.io/leader]');
    expect(result.problem?.detail).toMatch(/must be "kimops" or "kim"; got "KIMOPS"/);
    expect(result.problem?.detail).toMatch(/remove it to use the landscape's default \(kimops\)/);
  });
});

describe('shootLeader and withLeader', () => {
  it("marks main's Shoot with the Runtime label's own key, so one name is searched for both", () => {
    expect(LEADER_ANNOTATION).toBe(LEADER_LABEL);
  });

  const shoot = { kind: 'Shoot', metadata: { name: 's', annotations: { a: '1' } } };

  it('marks a KIM-led Shoot and reads the mark back', () => {
    const marked = withLeader(shoot, 'kim');
    expect(marked.metadata.annotations).toEqual({ a: '1', [LEADER_ANNOTATION]: 'kim' });
    expect(shootLeader(marked)).toBe('kim');
    expect(shootLeader(shoot)).toBe('kimops');
  });

  it('unmarks for kimops and drops annotations it leaves empty', () => {
    expect(withLeader(withLeader(shoot, 'kim'), 'kimops')).toEqual(shoot);
    const bare = withLeader({ metadata: { name: 's', annotations: { [LEADER_ANNOTATION]: 'kim' } } }, 'kimops');
    expect(bare.metadata).toEqual({ name: 's' });
  });

  it('reads any other annotation value as KIM: written by hand, and under KIM the applier writes nothing', () => {
    expect(shootLeader({ metadata: { annotations: { [LEADER_ANNOTATION]: 'kimops' } } })).toBe('kim');
    expect(shootLeader({ metadata: { annotations: { [LEADER_ANNOTATION]: '' } } })).toBe('kim');
    expect(shootLeader({ metadata: { annotations: {} } })).toBe('kimops');
  });
});

describe("landscape.yaml's defaultLeader", () => {
  const dev = readFileSync(new URL('../landscapes/dev/landscape.yaml', import.meta.url), 'utf8');

  it('reads kim', () => {
    expect(parseLandscape(`${dev}\ndefaultLeader: kim\n`, 'landscape.yaml').defaultLeader).toBe('kim');
  });

  it('refuses another value, naming the field and the fix', () => {
    expect(() => parseLandscape(`${dev}\ndefaultLeader: KIM\n`, 'landscape.yaml')).toThrow(
      /landscape.yaml: defaultLeader: must be one of kimops, kim; got "KIM" \(who leads a Runtime without/,
    );
  });
});
