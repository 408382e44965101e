/**
 * The review server hands out only outputs: a manifest line (hand-edited, stale or hostile) that
 * names the engine's own files, a folder, the manifest, or a link into `.mediaflow/` gets a 404,
 * never the bytes and never a 500.
 */
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

let server: ReviewServer;

beforeAll(async () => {
  const outputDir = join(await mkdtemp(join(tmpdir(), 'review-served-')), 'out');
  const plan = { ...stillsAndClips(), outputDir };
  await mkdir(join(outputDir, '.mediaflow/claims/c'), { recursive: true });
  await mkdir(join(outputDir, 'still/.mediaflow/records'), { recursive: true });
  await mkdir(join(outputDir, 'clip'), { recursive: true });
  await writeFile(join(outputDir, 'still/real.png'), 'png bytes');
  await writeFile(join(outputDir, CLAIMS), 'claims log');
  await writeFile(join(outputDir, 'still/.mediaflow/records/r'), 'claims log');
  await writeFile(join(outputDir, 'manifest.jsonl'), 'claims log');
  await symlink(join(outputDir, CLAIMS), join(outputDir, 'still/into-claims.png'));
  const entries = plan.jobs.map((job, i) => ({ ...saved(job), file: NAMED[i]! }));
  const live = new LiveModel(async () => ({
    plan,
    reviewedSteps: new Set(['still']),
    entries: new Map(entries.map((entry) => [entry.key, entry])),
    decisions: latest([]),
    progress: running(plan),
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

  it('a path no record names is a 404 even when the file exists', async () => {
    const response = await get('.mediaflow/claims/c/other.jsonl');
    expect(response.statusCode).toBe(404);
    await response.body.dump();
  });
});
