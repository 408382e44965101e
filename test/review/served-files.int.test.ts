/**
 * The review server hands out only outputs and derived files: a manifest line or a derivative
 * record (hand-edited, stale or hostile) that names the engine's own files, a folder, the
 * manifest, a link into `.mediaflow/`, or (a record) any file but the one its plan names gets a
 * 404, never the bytes and never a 500.
 */
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlannedJob } from '../../plan/types.ts';
import type { DerivativeRecord } from '../../records/derivatives.ts';
import { LiveModel } from '../../review/live.ts';
import { type ReviewServer, startReviewServer } from '../../review/server.ts';
import { latest, running, saved, stillsAndClips } from '../helpers/review-fixtures.ts';

const CLAIMS = '.mediaflow/claims/c/log.jsonl';
/** What each manifest line names, in job order; the first is a real output. */
const NAMED = [
  'still/real.png',
  CLAIMS,
  'still',
  'clip/',
  'still/into-claims.png',
  'manifest.jsonl',
  'still/.mediaflow/records/r',
  'still/never-written.png',
];

/** A derive step `feed` on the stills: each still's file `feed/<letter>`, key `d<n>`. */
const FEED = ['a', 'b', 'c', 'd'];
const derivativeKey = (n: number) => `d${n.toString(16).padStart(31, '0')}`;

function withFeed(jobs: readonly PlannedJob[]): PlannedJob[] {
  let n = 0;
  return jobs.map((job) => {
    if (job.step !== 'still') return job;
    const file = FEED[n]!;
    return {
      ...job,
      derivatives: [{ step: 'feed', key: derivativeKey(++n), file, operations: [], output: 'image' }],
    };
  });
}

/** A record of derivative `n` made from `parentFile`, naming `file`. */
function made(n: number, parentFile: string, file: string): DerivativeRecord {
  return {
    key: derivativeKey(n),
    step: 'feed',
    parent: { key: '0'.repeat(32), prediction_id: null, file: parentFile, sha256: '0'.repeat(64) },
    operations: [],
    tools: 'sharp',
    at: '2026-12-01T00:00:00Z',
    state: 'made',
    file,
    sha256: '0'.repeat(64),
    bytes: 9,
    format: 'jpg',
    width: 1,
    height: 1,
    duration_s: null,
  };
}

let server: ReviewServer;

beforeAll(async () => {
  const outputDir = join(await mkdtemp(join(tmpdir(), 'review-served-')), 'out');
  const base = stillsAndClips();
  const plan = {
    ...base,
    outputDir,
    jobs: withFeed(base.jobs),
    deriveSteps: [{ id: 'feed', from: 'still', output: 'image' as const, derivativeCount: 4 }],
  };
  await mkdir(join(outputDir, '.mediaflow/claims/c'), { recursive: true });
  await mkdir(join(outputDir, 'still/.mediaflow/records'), { recursive: true });
  await mkdir(join(outputDir, 'clip'), { recursive: true });
  await writeFile(join(outputDir, 'still/real.png'), 'png bytes');
  await writeFile(join(outputDir, CLAIMS), 'claims log');
  await writeFile(join(outputDir, 'still/.mediaflow/records/r'), 'claims log');
  await writeFile(join(outputDir, 'manifest.jsonl'), 'claims log');
  await symlink(join(outputDir, CLAIMS), join(outputDir, 'still/into-claims.png'));
  await mkdir(join(outputDir, 'feed'), { recursive: true });
  for (const file of ['feed/a.jpg', 'feed/stray.jpg', 'feed/d.jpg', 'feed/e.jpg'])
    await writeFile(join(outputDir, file), 'jpg bytes');
  await symlink(join(outputDir, CLAIMS), join(outputDir, 'feed/b.jpg'));
  const entries = plan.jobs.map((job, i) => ({ ...saved(job), file: NAMED[i]! }));
  const [s1, s2, s3, s4] = entries.filter((entry) => entry.step === 'still').map((entry) => entry.file);
  const records: DerivativeRecord[] = [
    made(1, s1!, 'feed/a.jpg'),
    made(2, s2!, 'feed/b.jpg'),
    made(3, s3!, 'feed/stray.jpg'),
    {
      ...made(4, s4!, 'feed/d.jpg'),
      state: 'failed',
      message: 'derive_failed: operation 1 (format): too big',
    },
    made(5, s1!, 'feed/e.jpg'),
  ];
  const live = new LiveModel(async () => ({
    plan,
    reviewedSteps: new Set(['still']),
    entries: new Map(entries.map((entry) => [entry.key, entry])),
    decisions: latest([]),
    progress: running(plan),
    derivatives: new Map(records.map((record) => [record.key, record])),
  }));
  server = await startReviewServer({ live, outputDir, send: async () => ({ accepted: [], refused: [] }) });
});
afterAll(() => server?.close());

const get = (file: string) => request(new URL(`files/${file}`, server.url));

describe('files the records name', () => {
  it('an output is served', async () => {
    const response = await get('still/real.png');
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('png bytes');
  });

  it.each(NAMED.slice(1))('%s is a 404, not its bytes, not a 500', async (file) => {
    const response = await get(file);
    expect(response.statusCode).toBe(404);
    expect(await response.body.text()).not.toContain('claims log');
  });

  it('a derived file its record says was made, under the name its plan gives it, is served', async () => {
    const response = await get('feed/a.jpg');
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('jpg bytes');
  });

  it.each([
    ['a link into .mediaflow/', 'feed/b.jpg'],
    ['a record naming another file than its plan', 'feed/stray.jpg'],
    ['a failed derivative', 'feed/d.jpg'],
    ['a record of no derivative of the plan', 'feed/e.jpg'],
  ])('%s (%s) is a 404, not its bytes', async (_, file) => {
    const response = await get(file);
    expect(response.statusCode).toBe(404);
    expect(await response.body.text()).not.toMatch(/claims log|jpg bytes/);
  });

  it('a path no record names is a 404 even when the file exists', async () => {
    const response = await get('.mediaflow/claims/c/other.jsonl');
    expect(response.statusCode).toBe(404);
    await response.body.dump();
  });
});
