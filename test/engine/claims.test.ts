import { writeSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendClaims, type NewClaim, readAllClaims, readClaims } from '../../activities/claims.ts';
import { ClaimsIndex } from '../../activities/claims-index.ts';
import { ShortWrite } from '../../activities/jsonl.ts';
import { stateDirOf } from '../../activities/plan-store.ts';

const claim = (id: string): NewClaim => ({
  prediction_id: id,
  key: `k${id}`,
  regen: 0,
  idempotency_key: `i${id}`,
});
const file = (output: string, campaign: string) => join(stateDirOf(output), 'claims', `${campaign}.jsonl`);

describe('the claims log', () => {
  it('is read incrementally by each worker, lookups at the same moment missing nothing', async () => {
    const output = await mkdtemp(join(tmpdir(), 'mediaflow-claims-'));
    const index = new ClaimsIndex();
    await appendClaims(output, 'c', [claim('1')]);
    expect((await index.of(output, 'c').lookup('i1'))?.prediction_id).toBe('1');
    await appendClaims(output, 'c', [claim('2'), claim('3')]);
    // Two reads at once would both take the new bytes and move past them twice (the lines after
    // would be skipped): reads run one after another.
    const claims = index.of(output, 'c');
    const [two, three] = await Promise.all([claims.lookup('i2'), claims.lookup('i3')]);
    await appendClaims(output, 'c', [claim('4')]);
    expect([two?.prediction_id, three?.prediction_id, (await claims.lookup('i4'))?.prediction_id]).toEqual([
      '2',
      '3',
      '4',
    ]);
    expect(await claims.lookup('i5')).toBeUndefined();
  });

  it('keeps the first claim written after a torn line', async () => {
    const output = await mkdtemp(join(tmpdir(), 'mediaflow-claims-'));
    await appendClaims(output, 'c', [claim('1')]);
    await appendFile(file(output, 'c'), '{"prediction_id":"2","ke');
    await appendClaims(output, 'c', [claim('3')]);
    expect((await readClaims(output, 'c')).map((c) => c.prediction_id)).toEqual(['1', '3']);
  });

  it('keeps each campaign to its own claims, even in a shared output folder', async () => {
    const output = await mkdtemp(join(tmpdir(), 'mediaflow-claims-'));
    await appendClaims(output, 'spring', [claim('1')]);
    await appendClaims(output, 'autumn', [claim('2')]);
    expect((await readClaims(output, 'spring')).map((c) => [c.campaign, c.prediction_id])).toEqual([
      ['spring', '1'],
    ]);
    // Reconciliation still sees every campaign's, so it never adopts another campaign's prediction.
    expect((await readAllClaims(output)).map((c) => c.prediction_id).sort()).toEqual(['1', '2']);
  });

  it('skips lines that are not claims instead of trusting them', async () => {
    const output = await mkdtemp(join(tmpdir(), 'mediaflow-claims-'));
    await appendClaims(output, 'c', [claim('1')]);
    await appendFile(file(output, 'c'), '{"prediction_id":7}\n["not","a","claim"]\n');
    expect((await readClaims(output, 'c')).map((c) => c.prediction_id)).toEqual(['1']);
  });

  it('undoes a short write, so the next claim is not glued onto half a line', async () => {
    const output = await mkdtemp(join(tmpdir(), 'mediaflow-claims-'));
    await appendClaims(output, 'c', [claim('1')]);
    const before = (await stat(file(output, 'c'))).size;
    const short = { write: (fd: number, data: Buffer) => writeSync(fd, data.subarray(0, 10)) };
    await expect(appendClaims(output, 'c', [claim('2')], short)).rejects.toThrow(ShortWrite);
    expect((await stat(file(output, 'c'))).size).toBe(before);
    await appendClaims(output, 'c', [claim('3')]);
    expect((await readFile(file(output, 'c'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(2);
    expect((await readClaims(output, 'c')).map((c) => c.prediction_id)).toEqual(['1', '3']);
  });
});
