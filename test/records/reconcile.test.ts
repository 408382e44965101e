/**
 * The campaign's records against the service's figures (records/reconcile.ts), as `audit` reads
 * them: each charge matched to its job and take, refused and failed charges listed as refunds to
 * ask for, and a charge no record explains, or a figure that differs, a mismatch.
 */
import { describe, expect, it } from 'vitest';
import { parseUsd } from '../../api/money.ts';
import { type CampaignRecords, reconcile, type ServicePrediction } from '../../records/reconcile.ts';
import { manifestEntry } from './manifest-entry.ts';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);

const claim = (id: string, key: string, regen = 0) => ({
  campaign: 'c',
  prediction_id: id,
  key,
  regen,
  idempotency_key: `k-${id}`,
});

/** Job A: two takes (a retake), its second output flagged once; job B: failed, then lost on download. */
const records: CampaignRecords = {
  takes: [
    { ...manifestEntry(KEY_A), name: 'still-a', prediction_id: 'p1', credits_used: '0.12' },
    { ...manifestEntry(KEY_A), name: 'still-a', prediction_id: 'p3', credits_used: '0.12', regenerations: 1 },
  ],
  refusals: [
    {
      key: KEY_A,
      take: 1,
      model: 'I1',
      stage: 'output',
      code: 'OUTPUT_FLAGGED',
      message: 'flagged',
      credits_used: '0.12',
      prediction_id: 'p2',
      at: '2026-11-30T10:00:00Z',
    },
  ],
  unsaved: [
    {
      key: KEY_B,
      take: 0,
      prediction_id: 'p5',
      credits_used: '0.25',
      failure: 'output_expired',
      message: 'gone',
      at: '2026-11-30T10:00:00Z',
    },
  ],
  claims: [
    claim('p1', KEY_A),
    claim('p2', KEY_A, 1),
    claim('p3', KEY_A, 1),
    claim('p4', KEY_B),
    claim('p5', KEY_B),
  ],
  names: new Map([
    [KEY_A, 'still-a'],
    [KEY_B, 'clip-b'],
  ]),
};

const at = (entries: [string, string, string | null][]) =>
  new Map<string, ServicePrediction | null>(
    entries.map(([id, status, usd]) => [id, { id, status, charged: usd === null ? null : parseUsd(usd) }]),
  );

const agreeing = at([
  ['p1', 'succeeded', '0.12'],
  ['p2', 'failed', '0.12'],
  ['p3', 'succeeded', '0.12'],
  ['p4', 'failed', '0'],
  ['p5', 'succeeded', '0.25'],
]);

describe('reconcile', () => {
  it('matches every charge to a job and take, and lists what to ask the provider to refund', () => {
    const result = reconcile(records, agreeing);
    expect(result.charges.map((c) => [c.name, c.take, c.kind, c.charged])).toEqual([
      ['clip-b', 0, 'unsaved', 250_000],
      ['still-a', 0, 'take', 120_000],
      ['still-a', 1, 'refused', 120_000],
      ['still-a', 1, 'take', 120_000],
    ]);
    expect(result.refundable.map((c) => c.predictionId)).toEqual(['p2']);
    expect(result.mismatches).toEqual([]);
    expect([result.recordedTotal, result.chargedTotal]).toEqual([610_000, 610_000]);
  });

  it('a charge no record explains, and a figure that differs, are mismatches', () => {
    const result = reconcile(
      records,
      new Map([
        ...agreeing,
        ...at([
          ['p3', 'succeeded', '0.15'],
          ['p4', 'succeeded', '0.25'],
        ]),
      ]),
    );
    expect(result.mismatches).toEqual([
      'still-a take 1 (p3): the records say $0.12, the service charged $0.15',
      'clip-b take 0 (p4): charged by the service, no record explains it',
    ]);
    expect(result.chargedTotal - result.recordedTotal).toBe(parseUsd('0.28'));
  });

  it('a charged failure is a refund to ask for; one still running and one forgotten are said, not matched', () => {
    const result = reconcile(
      records,
      new Map([
        ...agreeing,
        ...at([
          ['p4', 'failed', '0.25'],
          ['p5', 'processing', '0.25'],
        ]),
        ['p1', null],
      ]),
    );
    expect(result.refundable.map((c) => [c.predictionId, c.kind])).toEqual([
      ['p4', 'failed'],
      ['p2', 'refused'],
    ]);
    expect(result.processing).toEqual(['p5']);
    expect(result.forgotten).toEqual(['p1']);
    expect(result.mismatches).toEqual([]);
  });
});
