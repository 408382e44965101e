/**
 * Shared review over HTTP (issue 24): per-person links signed with the campaign's secret, checked
 * on every path. Forged, expired, revoked and other campaigns' links get 401 with an empty body; a
 * `view` link reads but cannot decide (403); the Host header and the origin of a decision are
 * checked; a decision records the link's name whatever the body says; the second decision on a
 * take is refused with whose decision won. The campaign behind is a fixed read model whose
 * decisions are recorded by the stub workflow before it acknowledges, as the real one does.
 */
import { mkdir, mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionRecord, ReviewBatch } from '../../contract/review.ts';
import { issueLink, readLinkKeys, revokeLink } from '../../review/link-keys.ts';
import { signLink } from '../../review/links.ts';
import { LiveModel } from '../../review/live.ts';
import { type ReviewServer, startReviewServer } from '../../review/server.ts';
import { sheetUrl } from '../../review/sheet-url.ts';
import { running, saved, stillsAndClips } from '../helpers/review-fixtures.ts';

const CAMPAIGN = 'shared-review';
const plan0 = stillsAndClips();
const [s1, , s2] = plan0.jobs;
let dir: string;
let keysFile: string;
let server: ReviewServer;
const batches: ReviewBatch[] = [];
const recorded = new Map<string, DecisionRecord>();

async function link(name: string, role: 'view' | 'decide', expiresInMs = 3_600_000) {
  const { token, claims } = await issueLink(keysFile, {
    campaign: CAMPAIGN,
    name,
    role,
    exp: Date.now() + expiresInMs,
  });
  return { url: `${server.origin}/${token}/`, id: claims.id, token };
}

function decide(url: string, body: unknown, headers: Record<string, string> = {}) {
  return request(new URL('decisions', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'review-access-'));
  keysFile = join(dir, 'state', 'review-links', `${CAMPAIGN}.json`);
  const outputDir = join(dir, 'out');
  const plan = { ...plan0, outputDir };
  const entries = [saved(s1!), saved(s2!)];
  await mkdir(join(outputDir, 'still'), { recursive: true });
  await writeFile(join(outputDir, entries[0]!.file), 'png bytes');
  const live = new LiveModel(
    async () => ({
      plan,
      reviewedSteps: new Set(['still']),
      entries: new Map(entries.map((entry) => [entry.key, entry])),
      decisions: new Map(recorded),
      progress: running(plan),
    }),
    0,
  );
  server = await startReviewServer({
    live,
    outputDir,
    access: { campaign: CAMPAIGN, keys: () => readLinkKeys(keysFile) },
    send: async (batch) => {
      batches.push(batch);
      const accepted: string[] = [];
      const refused: { key: string; reason: 'not_awaiting_review'; message: string }[] = [];
      for (const decision of batch.decisions) {
        if (recorded.has(decision.key)) {
          refused.push({ key: decision.key, reason: 'not_awaiting_review', message: 'decided already' });
          continue;
        }
        recorded.set(decision.key, {
          ...decision,
          take: 0,
          at: '2026-11-27T07:30:00.000Z',
          source: 'reviewer',
        });
        accepted.push(decision.key);
      }
      return { accepted, refused };
    },
  });
});
afterAll(() => server?.close());

describe('per-person review links', () => {
  it('keeps the secret and revocations in a file only its owner can read', async () => {
    await link('Owner', 'view');
    expect((await stat(keysFile)).mode & 0o777).toBe(0o600);
  });

  it('opens the sheet for a valid link, naming its holder on the page', async () => {
    const ana = await link('Ana', 'decide');
    const page = await request(ana.url);
    expect(page.statusCode).toBe(200);
    const html = await page.body.text();
    expect(html).toContain('data-reviewer="Ana" data-role="decide"');
    expect(html).toContain('still-shoe-white');
    const image = await request(new URL('files/still/still-shoe-white.png', ana.url));
    expect(await image.body.text()).toBe('png bytes');
  });

  it('answers 401 with no detail to forged, expired, revoked and other campaigns’ links', async () => {
    const good = await link('Bo', 'decide');
    const [payload, signature] = good.token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, role: 'decide', name: 'Boss' })).toString(
      'base64url',
    );
    const expired = await link('Cy', 'decide', -1);
    const revoked = await link('Di', 'decide');
    expect(await revokeLink(keysFile, revoked.id)).toBe(true);
    const secret = (await readLinkKeys(keysFile)).secret;
    const elsewhere = signLink(secret, { ...claims, id: 'aaaaaaaaaaaaaaaa', campaign: 'other-campaign' });
    const otherSecret = signLink(Buffer.alloc(32, 7), claims);
    const cases = {
      'a payload changed under its signature': `${forgedPayload}.${signature}`,
      'a signature made with another secret': otherSecret,
      'a truncated signature': `${payload}.${signature.slice(0, 20)}`,
      expired: expired.token,
      revoked: revoked.token,
      'another campaign’s link': elsewhere,
    };
    for (const [what, token] of Object.entries(cases)) {
      for (const path of ['', 'changes?since=0', 'files/still/still-shoe-white.png']) {
        const response = await request(`${server.origin}/${token}/${path}`);
        expect(response.statusCode, `${what} ${path}`).toBe(401);
        expect(await response.body.text(), what).toBe('');
      }
      const post = await decide(`${server.origin}/${token}/`, {
        decisions: [{ key: s1!.key, action: 'approve' }],
      });
      expect(post.statusCode, what).toBe(401);
      await post.body.dump();
    }
    // The same link, not revoked, still opens: revocation is per link.
    expect((await request(good.url)).statusCode).toBe(200);
    expect(batches).toHaveLength(0);
  });

  it('lets a view link read but not decide', async () => {
    const eve = await link('Eve', 'view');
    expect((await request(new URL('changes?since=0', eve.url))).statusCode).toBe(200);
    const post = await decide(eve.url, { decisions: [{ key: s1!.key, action: 'approve' }] });
    expect(post.statusCode).toBe(403);
    expect(await post.body.json()).toEqual({ message: 'Eve’s link may view, not decide' });
    expect(batches).toHaveLength(0);
  });

  it('refuses a Host it does not serve, and decisions posted from another site', async () => {
    const ana = await link('Ana', 'decide');
    const rebound = await request(ana.url, { headers: { host: 'attacker.example:80' } });
    expect(rebound.statusCode).toBe(421);
    await rebound.body.dump();
    for (const headers of [
      { origin: 'https://attacker.example' },
      { 'sec-fetch-site': 'cross-site' },
    ] as Record<string, string>[]) {
      const post = await decide(ana.url, { decisions: [{ key: s1!.key, action: 'approve' }] }, headers);
      expect(post.statusCode, JSON.stringify(headers)).toBe(403);
      await post.body.dump();
    }
    expect(batches).toHaveLength(0);
  });

  it('records the link’s name with the decision, and tells the second reviewer whose decision won', async () => {
    const ana = await link('Ana', 'decide');
    const bo = await link('Bo', 'decide');
    const first = await decide(
      ana.url,
      { decisions: [{ key: s1!.key, action: 'approve', by: 'Somebody else' }] },
      { origin: server.origin, 'sec-fetch-site': 'same-origin' },
    );
    expect(await first.body.json()).toEqual({ accepted: [s1!.key], refused: [] });
    expect(batches.at(-1)?.decisions).toEqual([{ key: s1!.key, action: 'approve', by: 'Ana' }]);
    expect(recorded.get(s1!.key)?.by).toBe('Ana');
    const second = await decide(
      bo.url,
      { decisions: [{ key: s1!.key, action: 'reject' }] },
      { origin: server.origin },
    );
    expect(await second.body.json()).toEqual({
      accepted: [],
      refused: [
        {
          key: s1!.key,
          reason: 'not_awaiting_review',
          message: 'approved by Ana at 2026-11-27T07:30:00.000Z (take 0): their decision stands',
        },
      ],
    });
  });

  it('opens the secret-free sheet address only for a browser that opened its own link', async () => {
    const address = sheetUrl(server.origin, CAMPAIGN);
    expect(address).toBe(`${server.origin}/sheet/${CAMPAIGN}/`);
    const stranger = await request(address);
    expect(stranger.statusCode).toBe(401);
    expect(await stranger.body.text()).toBe('');
    const ana = await link('Ana', 'decide');
    const page = await request(ana.url);
    await page.body.dump();
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    expect(page.headers['set-cookie']).toMatch(/Path=\/sheet\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const back = await request(address, { headers: { cookie } });
    expect(back.statusCode).toBe(303);
    expect(new URL(String(back.headers.location), server.origin).toString()).toBe(ana.url);
    await back.body.dump();
    // The cookie never decides: a post to the sheet address is refused.
    const post = await request(`${address}decisions`, { method: 'POST', headers: { cookie } });
    expect(post.statusCode).toBe(401);
    await post.body.dump();
  });
});
