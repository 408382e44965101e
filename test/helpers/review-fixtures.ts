/** Small plans, manifest entries and decisions for the review model's tables. */

import type { CampaignProgress } from '../../contract/progress.ts';
import type { DecisionRecord, ReviewAction } from '../../contract/review.ts';
import type { Plan, PlannedJob } from '../../plan/types.ts';
import type { ManifestEntry } from '../../records/manifest.ts';

export const key = (n: number) => n.toString(16).padStart(32, '0');

export function job(n: number, fields: Partial<PlannedJob> & Pick<PlannedJob, 'step' | 'name'>): PlannedJob {
  return {
    key: key(n),
    model: 'I1',
    input: { prompt: `prompt ${n}` },
    parent: null,
    usd: 100_000,
    vars: {},
    variant: 1,
    ...fields,
  };
}

/**
 * Four stills (product × background) each with one video: `still-<product>-<background>` and
 * `clip-<product>-<background>`, stills $0.10, clips $1.00.
 */
export function stillsAndClips(): Plan {
  const stills: PlannedJob[] = [];
  const jobs: PlannedJob[] = [];
  let n = 1;
  for (const product of ['shoe', 'bag']) {
    for (const background of ['white', 'marble']) {
      const still = job(n++, {
        step: 'still',
        name: `still-${product}-${background}`,
        vars: { product, background },
      });
      const clip = job(n++, {
        step: 'clip',
        name: `clip-${product}-${background}`,
        model: 'V4',
        parent: still.key,
        usd: 1_000_000,
        vars: { product, background },
      });
      stills.push(still);
      jobs.push(still, clip);
    }
  }
  return {
    campaign: 'review-table',
    specFile: '/srv/spec.yaml',
    outputDir: '/srv/out',
    budget: 10_000_000,
    concurrency: 4,
    steps: [
      { id: 'still', model: 'I1', from: null, retries: 0, concurrency: null, jobCount: 4 },
      { id: 'clip', model: 'V4', from: 'still', retries: 0, concurrency: null, jobCount: 4 },
    ],
    jobs,
    totalUsd: 4_400_000,
    unpricedJobs: 0,
  };
}

export function saved(
  planned: PlannedJob,
  take = 0,
  ext = planned.model.startsWith('V') ? 'mp4' : 'png',
): ManifestEntry {
  return {
    key: planned.key,
    step: planned.step,
    name: planned.name,
    model: planned.model,
    input: { ...planned.input },
    prediction_id: `pred-${planned.name}-${take}`,
    credits_used: planned.usd === null ? null : (planned.usd / 1_000_000).toFixed(2),
    file: `${planned.step}/${planned.name}.${ext}`,
    sha256: '0'.repeat(64),
    bytes: 1,
    output_url: `https://cdn.example/${planned.name}`,
    regenerations: take,
    created_at: '2026-11-23T00:00:00Z',
    finished_at: '2026-11-23T00:00:01Z',
    wait_ms: 1,
    download_ms: 1,
  };
}

export function decided(planned: PlannedJob, action: ReviewAction, take = 0): DecisionRecord {
  return { key: planned.key, action, take, at: `2026-11-23T00:00:0${take}Z`, source: 'reviewer' };
}

export function running(plan: Plan, spent = 0): CampaignProgress {
  return {
    campaign: plan.campaign,
    outcome: 'running',
    steps: [],
    spent,
    committed: 0,
    budget: plan.budget,
    recentFailures: [],
    startedAt: 0,
    etaMs: null,
    runs: 1,
  };
}

/** Decisions by job key, as readDecisions gives them. */
export function latest(records: readonly DecisionRecord[]): Map<string, DecisionRecord> {
  return new Map(records.map((record) => [record.key, record]));
}
