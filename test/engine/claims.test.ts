import { appendFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendClaims, readClaims } from '../../activities/claims.ts';
import { stateDirOf } from '../../activities/plan-store.ts';

describe('the claims log', () => {
  it('keeps the first claim written after a torn line', async () => {
    const output = await mkdtemp(join(tmpdir(), 'mediaflow-claims-'));
    await appendClaims(output, [{ prediction_id: '1', key: 'a', regen: 0 }]);
    await appendFile(join(stateDirOf(output), 'claims.jsonl'), '{"prediction_id":"2","ke');
    await appendClaims(output, [{ prediction_id: '3', key: 'c', regen: 0 }]);
    expect((await readClaims(output)).map((claim) => claim.prediction_id)).toEqual(['1', '3']);
  });
});
