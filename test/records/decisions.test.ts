/**
 * Review decisions on disk (records/decisions.ts): created once per job key and take, read
 * back as the latest take per key, and what a reviewer still has to decide.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../contract/review.ts';
import { awaitingReview, readDecisions, writeDecisions } from '../../records/decisions.ts';
import type { ManifestEntry } from '../../records/manifest.ts';

const key = (c: string) => c.repeat(32);
const record = (k: string, take: number, action: DecisionRecord['action']): DecisionRecord => ({
  key: k,
  take,
  action,
  at: '2026-11-23T00:00:00.000Z',
  source: 'reviewer',
});

describe('decision records', () => {
  it('are created once per key and take; the latest take wins when read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-decisions-'));
    expect(
      await writeDecisions(dir, 'c', [record(key('a'), 0, 'regenerate'), record(key('b'), 0, 'reject')]),
    ).toBe(2);
    // A retried activity writes the same records again: nothing changes.
    expect(await writeDecisions(dir, 'c', [record(key('a'), 0, 'approve')])).toBe(0);
    expect(await writeDecisions(dir, 'c', [record(key('a'), 1, 'approve')])).toBe(1);
    // Something else in the folder is not a decision.
    const folder = join(dir, '.mediaflow', 'decisions', 'c');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'notes.json'), '{"hello": 1}');
    const read = await readDecisions(dir, 'c');
    expect([...read.entries()].map(([k, d]) => [k, d.take, d.action])).toEqual([
      [key('a'), 1, 'approve'],
      [key('b'), 0, 'reject'],
    ]);
    expect(await readDecisions(dir, 'other')).toEqual(new Map());
  });

  it('refuse a key that is not a job key (it names a file)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-decisions-'));
    await expect(writeDecisions(dir, 'c', [record('../../escape', 0, 'approve')])).rejects.toThrow(
      /not a job key/,
    );
  });
});

describe('awaitingReview', () => {
  const entry = (k: string, step: string, regenerations: number) =>
    ({ key: k, step, regenerations }) as ManifestEntry;
  const rows: [string, ManifestEntry, DecisionRecord | undefined, boolean][] = [
    ['a saved take without a decision awaits', entry(key('a'), 'still', 0), undefined, true],
    ['a decided take does not', entry(key('a'), 'still', 0), record(key('a'), 0, 'approve'), false],
    [
      'a take being regenerated does not',
      entry(key('a'), 'still', 0),
      record(key('a'), 0, 'regenerate'),
      false,
    ],
    ['the new take, once saved, does', entry(key('a'), 'still', 1), record(key('a'), 0, 'regenerate'), true],
    ['a job of a step without a gate never does', entry(key('a'), 'clip', 0), undefined, false],
  ];
  it.each(rows)('%s', (_, e, decided, awaits) => {
    const decisions = new Map(decided ? [[decided.key, decided]] : []);
    expect(awaitingReview([e], decisions, new Set(['still']))).toEqual(awaits ? [e.key] : []);
  });
});
