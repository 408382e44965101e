/**
 * The review server on its own (the campaign behind it is a fixed read model; the end-to-end test
 * drives a real one): the token, the loopback address, outputs only from the campaign's folder,
 * decisions in batches of at most 500.
 */
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewBatch } from '../../contract/review.ts';
import { LiveModel } from '../../review/live.ts';
import { type ReviewServer, startReviewServer } from '../../review/server.ts';
import { decided, job, latest, running, saved, stillsAndClips } from '../helpers/review-fixtures.ts';

const plan0 = stillsAndClips();
// Enough stills for decisions in several batches: the server sends only keys of the campaign's jobs.
const extra = Array.from({ length: 1200 }, (_, i) =>
  job(1000 + i, { step: 'still', name: `still-extra-${i}` }),
);
let dir: string;
let server: ReviewServer;
const batches: ReviewBatch[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'review-server-'));
  const outputDir = join(dir, 'out');
  const plan = { ...plan0, outputDir, jobs: [...plan0.jobs, ...extra] };
  const [s1, c1, s2] = plan.jobs;
  const entries = [saved(s1!), saved(c1!), saved(s2!)];
  await mkdir(join(outputDir, 'still'), { recursive: true });
  await mkdir(join(outputDir, 'clip'), { recursive: true });
  await writeFile(join(outputDir, entries[0]!.file), 'png bytes');
  await writeFile(join(outputDir, entries[1]!.file), 'mp4 bytes');
  await writeFile(join(dir, 'secret.txt'), 'not yours');
  await writeFile(join(outputDir, 'unlisted.png'), 'not in the manifest');
  // The manifest is a file anyone with the folder can edit: a line may point through a link.
  await symlink(join(dir, 'secret.txt'), join(outputDir, entries[2]!.file));
  const live = new LiveModel(async () => ({
    plan,
    reviewedSteps: new Set(['still']),
    entries: new Map(entries.map((entry) => [entry.key, entry])),
    decisions: latest([decided(s1!, 'approve')]),
    progress: running(plan),
  }));
  server = await startReviewServer({
    live,
    outputDir,
    send: async (batch) => {
      batches.push(batch);
      const [first, ...rest] = batch.decisions;
      return {
        accepted: rest.map((d) => d.key),
        refused: [{ key: first!.key, reason: 'not_awaiting_review', message: 'decided already' }],
      };
    },
  });
});
afterAll(() => server?.close());

const get = (path: string) => request(new URL(path, server.url));

describe('the review server', () => {
  it('listens on loopback only, at a URL holding the operator’s signed link', () => {
    const url = new URL(server.url);
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.pathname).toMatch(/^\/[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{43}\/$/);
  });

  it('serves the contact sheet of the reviewed step with the token, nothing without it', async () => {
    const page = await get('./');
    expect(page.statusCode).toBe(200);
    const html = await page.body.text();
    expect(html).toContain('still-shoe-white');
    expect(html).toContain('aria-label="still contact sheet"');
    expect(html).not.toContain('data-step="clip"');
    const origin = new URL(server.url).origin;
    for (const path of ['/', '/files/still/still-shoe-white.png', `/${'x'.repeat(32)}/`]) {
      const response = await request(`${origin}${path}`);
      expect(response.statusCode, path).toBe(401);
      await response.body.dump();
    }
  });

  it('serves outputs the manifest lists, with their type', async () => {
    const image = await get('files/still/still-shoe-white.png');
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(await image.body.text()).toBe('png bytes');
    const video = await get('files/clip/clip-shoe-white.mp4');
    expect(video.headers['content-type']).toBe('video/mp4');
    await video.body.dump();
  });

  it.each([
    ['a path out of the folder', 'files/..%2Fsecret.txt'],
    ['an encoded absolute path', 'files/%2Fetc%2Fpasswd'],
    ['dot segments', 'files/still/..%2F..%2Fsecret.txt'],
    ['a file of the folder no manifest line names', 'files/unlisted.png'],
    ['the engine’s own records', 'files/.mediaflow/plans/x.json'],
    ['a manifest line that leads out through a link', 'files/still/still-shoe-marble.png'],
  ])('refuses %s', async (_, path) => {
    const response = await get(path);
    expect(response.statusCode).toBe(404);
    expect(await response.body.text()).not.toContain('not yours');
  });

  it('sends 1,200 decisions as three updates of at most 500 and merges their answers', async () => {
    batches.length = 0;
    const decisions = extra.map((still) => ({ key: still.key, action: 'approve' as const }));
    const response = await request(new URL('decisions', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decisions }),
    });
    expect(response.statusCode).toBe(200);
    const ack = (await response.body.json()) as { accepted: string[]; refused: { key: string }[] };
    expect(batches.map((b) => b.decisions.length)).toEqual([500, 500, 200]);
    expect(batches.flatMap((b) => b.decisions.map((d) => d.key))).toEqual(decisions.map((d) => d.key));
    expect(ack.accepted).toHaveLength(1197);
    expect(ack.refused.map((r) => r.key)).toEqual([extra[0]!.key, extra[500]!.key, extra[1000]!.key]);
  });

  it('refuses a malformed decision with the reason, sending nothing', async () => {
    batches.length = 0;
    const response = await request(new URL('decisions', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ key: plan0.jobs[0]!.key, action: 'approve-all' }] }),
    });
    expect(response.statusCode).toBe(400);
    expect(((await response.body.json()) as { message: string }).message).toMatch(/^decisions\.0\.action: /);
    expect(batches).toEqual([]);
  });

  it("refuses a regeneration whose prompt is over the model's limit, sending only the others", async () => {
    batches.length = 0;
    const [s1, , s2] = plan0.jobs;
    const response = await request(new URL('decisions', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        decisions: [
          { key: s2!.key, action: 'regenerate', prompt: 'x'.repeat(20_000) },
          { key: extra[0]!.key, action: 'approve' },
          { key: s1!.key, action: 'regenerate', prompt: 'a shoe on slate' },
        ],
      }),
    });
    expect(response.statusCode).toBe(200);
    const ack = (await response.body.json()) as {
      refused: { key: string; reason: string; message: string }[];
    };
    expect(batches.flatMap((b) => b.decisions.map((d) => d.key))).toEqual([extra[0]!.key, s1!.key]);
    expect(ack.refused[0]).toEqual({
      key: s2!.key,
      reason: 'prompt_invalid',
      message: `the prompt is 20,000 characters, over ${s2!.model}'s limit of 10,000; nothing was sent and the current take is kept`,
    });
  });
});
