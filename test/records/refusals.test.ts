/**
 * Refusal records keep every charge: a take flagged twice (a re-run creates it again) has two
 * records and both charges count in the campaign's total; the same flagged prediction written
 * again (an activity's retry) is one record. The full `field` drill found three charged outputs
 * missing from the total before their records were named by prediction.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RefusalRecord, readRefusals, refusalCharges, writeRefusals } from '../../records/refusals.ts';
import { openStore } from '../../store/index.ts';

const KEY = 'a'.repeat(32);
const flagged = (predictionId: string): RefusalRecord => ({
  key: KEY,
  take: 0,
  model: 'V6',
  stage: 'output',
  code: 'OUTPUT_FLAGGED',
  message: 'flagged',
  credits_used: '0.60',
  prediction_id: predictionId,
  at: '2026-11-27T17:00:00Z',
});

describe('refusal records', () => {
  it('keep both charges of a take flagged twice, and one of a prediction written twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-refusals-'));
    const store = openStore(dir);
    await writeRefusals(store, 'c', [flagged('101')]);
    await writeRefusals(store, 'c', [flagged('101')]); // the activity's retry
    await writeRefusals(store, 'c', [flagged('202')]); // the next run's create of the same take
    // A refused prompt is charged nothing and has no prediction: one record per take.
    await writeRefusals(store, 'c', [
      { ...flagged('x'), stage: 'prompt', credits_used: '0', prediction_id: undefined, take: 1 },
    ]);
    const refusals = await readRefusals(dir, 'c', store);
    expect(refusals.get(KEY)).toHaveLength(3);
    expect(refusalCharges(refusals.values())).toBe(1_200_000);
  });
});
