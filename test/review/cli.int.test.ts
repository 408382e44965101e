/**
 * The review commands as a script uses them, against a running campaign on the suite's Temporal
 * dev server: status lists what awaits review, approve|reject|regenerate by name or glob (with
 * refusals and unknown names said, exit 1), report writes report.html, review serves the page
 * until Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { expect, it, onTestFinished } from 'vitest';
import { campaignView } from '../../control/campaign-view.ts';
import { readDecisions } from '../../records/decisions.ts';
import { openReviewCampaign } from '../../review/campaign.ts';
import { buildModel } from '../../review/model.ts';
import { BIN, cleanEnv, mediaflow, withOwnState } from '../cli/helpers.ts';
import { harness } from '../engine/harness.ts';
import { temporalAddress } from '../helpers/temporal.ts';

const SPEC = `
version: 1
campaign: review-cli
budget: { max_usd: 20 }
output: { dir: out }
steps:
  - id: still
    model: I1
    review: true
    matrix: { product: [sneaker, watch], background: [white, marble] }
    input: { prompt: "Acme {{product}} on a {{background}} background", aspect_ratio: "16:9" }
  - id: clip
    model: V4
    from: still
    input: { prompt: "Slow orbit around the {{product}}", start_image: "{{from.output}}", duration: "5" }
`;

it('decides from the command line, reports and serves the page', async () => {
  const h = await harness({ latencyMs: { I1: 200, V4: 500 }, jitter: false });
  const plan = await h.plan(SPEC);
  const handle = await h.start(plan);
  await h.startWorker();
  const env = cleanEnv({
    TEMPORAL_ADDRESS: temporalAddress(),
    MEDIAFLOW_API_URL: h.emulator.baseUrl,
    MEDIAFLOW_API_KEY: h.emulator.apiKey,
  });
  const run = (...args: string[]) => mediaflow(args, { cwd: h.dir, env });
  const c = plan.campaign;
  const campaign = await openReviewCampaign(h.temporal, c);
  const awaiting = async () =>
    buildModel(await campaign.load()).steps[0]!.items.filter((item) => item.state === 'awaiting').length;
  await expect.poll(awaiting, { timeout: 20_000 }).toBe(4);
  // status reads names only when the memo says some wait (it is published about once a second).
  const memo = async () => (await campaignView(h.temporal, handle)).progress.steps[0]!.awaiting_review;
  await expect.poll(memo, { timeout: 10_000 }).toBe(4);

  const status = await run('status', c, '--json');
  expect(status.code, status.stderr).toBe(0);
  expect(JSON.parse(status.stdout).awaiting_review.map((job: { name: string }) => job.name)).toEqual([
    'still-sneaker-white',
    'still-sneaker-marble',
    'still-watch-white',
    'still-watch-marble',
  ]);
  expect((await run('status', c)).stdout).toContain(
    'awaiting review (4): still-sneaker-white, still-sneaker-marble, still-watch-white, still-watch-marble',
  );

  const approve = await run('approve', c, 'still-sneaker-*', '--note', 'the best two', '--json');
  expect(approve.code).toBe(0);
  expect(JSON.parse(approve.stdout)).toMatchObject({
    action: 'approve',
    accepted: [{ name: 'still-sneaker-white' }, { name: 'still-sneaker-marble' }],
    refused: [],
  });
  const sneaker = plan.jobs[0]!;
  expect((await readDecisions(plan.outputDir, c)).get(sneaker.key)).toMatchObject({
    action: 'approve',
    note: 'the best two',
    source: 'reviewer',
  });

  const unknown = await run('reject', c, 'still-nothing-*');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('no job of a reviewed step matches "still-nothing-*"');

  // The step does not let a reviewer change the prompt: refused with the workflow's reason.
  const newPrompt = await run('regenerate', c, 'still-watch-white', '--prompt', 'a watch on slate');
  expect(newPrompt.code).toBe(1);
  expect(newPrompt.stdout).toMatch(/^refused still-watch-white: .+/m);
  // A prompt over the model's limit is refused before it is sent: the job keeps its take.
  const tooLong = await run('regenerate', c, 'still-watch-marble', '--prompt', 'x'.repeat(10_001));
  expect(tooLong.code).toBe(1);
  expect(tooLong.stdout).toContain(
    "refused still-watch-marble: the prompt is 10,001 characters, over I1's limit of 10,000; nothing was sent and the current take is kept",
  );
  const again = await run('approve', c, 'still-sneaker-white');
  expect(again.code).toBe(1);
  expect(again.stdout).toContain('refused still-sneaker-white: decided already');

  // The manifest as exported says who decided each still, and when.
  const exported = await run('export', c);
  expect(exported.code, exported.stderr).toBe(0);
  const lines = exported.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines.find((line) => line.key === sneaker.key)?.review).toMatchObject({
    action: 'approve',
    by: userInfo().username,
    take: 0,
    source: 'reviewer',
    note: 'the best two',
  });
  // A still no one has decided yet has no review.
  expect(lines.find((line) => line.name === 'still-watch-white')).toBeDefined();
  expect(lines.find((line) => line.name === 'still-watch-white')?.review).toBeUndefined();
  const reject = await run('reject', c, 'still-watch-*');
  expect(reject.stdout.trim()).toBe('reject: 2 (still-watch-white, still-watch-marble)');
  expect((await handle.result()).outcome).toBe('completed');
  expect(h.emulator.ledger().byModel).toEqual({ I1: 4, V4: 2 });

  const report = await run('report', c);
  expect(report.code).toBe(0);
  const file = join(plan.outputDir, 'report.html');
  expect(report.stdout).toContain('still: 4 jobs, 2 approved, 2 rejected');
  expect(report.stdout).toContain('clip: 4 jobs, 2 done, 2 skipped');
  expect((await stat(file)).size).toBeGreaterThan(0);
  expect(await readFile(file, 'utf8')).toContain('still-sneaker-white');
  // From the spec the same report, the campaign found by its name.
  const fromSpec = await run('report', 'spec.yaml');
  expect(fromSpec.stdout).toBe(report.stdout);
  // The total is the ledger's; a re-run would make nothing: the rejected stills' clips are skipped, not priced.
  expect(report.stdout).toContain(`spent $${h.emulator.ledger().creditsCharged} in all runs`);
  expect((await run('plan', 'spec.yaml')).stdout).toContain(
    '6 of 8 jobs recorded with their files (free); 0 to run, $0.00; 2 skipped: their still was rejected',
  );

  // `review` prints its URL, serves the page, and stops on Ctrl-C.
  // In the state folder `run` and `review-link` use: the links' secret is kept there.
  const serve = async (...args: string[]) => {
    const child = spawn(process.execPath, [BIN, 'review', ...args, '--no-open'], {
      cwd: h.dir,
      env: withOwnState(h.dir, env),
    });
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /at (http:\/\/127\.0\.0\.1:\d+\/\S+\/)$/m.exec(out);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`review exited ${code}: ${out}`)));
    });
    return { child, url };
  };
  const { child, url } = await serve(c);
  const page = await request(url);
  expect(page.statusCode).toBe(200);
  expect(await page.body.text()).toContain(`<h1>${c}</h1>`);
  // A link for someone else, made from another terminal: it names the running server's address
  // (no --url needed), opens the running sheet at once; as a view link it cannot decide; revoked,
  // it opens nothing.
  const origin = new URL(url).origin;
  const made = await run('review-link', c, '--name', 'Client', '--role', 'view', '--expires', '2h');
  expect(made.code, made.stderr).toBe(0);
  const link = made.stdout.trim();
  expect(link.startsWith(`${origin}/`)).toBe(true);
  const id = /id ([0-9a-f]{16})/.exec(made.stderr)?.[1];
  expect(made.stderr).toMatch(/^view link for Client, id [0-9a-f]{16}, until /);
  expect((await request(link)).statusCode).toBe(200);
  const viewDecides = await request(new URL('decisions', link), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ decisions: [{ key: plan.jobs[0]!.key, action: 'reject' }] }),
  });
  expect(viewDecides.statusCode).toBe(403);
  await viewDecides.body.dump();
  expect((await run('review-link', c, '--list')).stdout).toMatch(
    new RegExp(`^${id}  view    Client  until `, 'm'),
  );
  expect((await run('review-link', c, '--revoke', id!)).code).toBe(0);
  expect((await request(link)).statusCode).toBe(401);
  expect((await stat(join(h.dir, '.state', 'review-links', `${c}.json`))).mode & 0o777).toBe(0o600);
  const taken = await run('review', c, '--no-open', '--port', new URL(url).port);
  expect(taken.code).toBe(1);
  expect(taken.stderr).toContain(
    `port ${new URL(url).port} on 127.0.0.1 is in use; choose another with --port`,
  );
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGINT');
  expect(await exited).toBe(0);

  // `review` alone serves the inbox under inbox links: a campaign's link opens nothing there.
  const inbox = await serve();
  const inboxPage = await request(inbox.url);
  expect(inboxPage.statusCode).toBe(200);
  expect(await inboxPage.body.text()).toContain('<h1>Inbox</h1>');
  const inboxOrigin = new URL(inbox.url).origin;
  const teamLink = await run(
    'review-link',
    '--inbox',
    '--name',
    'Bo',
    '--role',
    'view',
    '--url',
    inboxOrigin,
  );
  expect(teamLink.code, teamLink.stderr).toBe(0);
  expect(teamLink.stderr).toContain('(revoke: mediaflow review-link --inbox --revoke ');
  expect((await request(teamLink.stdout.trim())).statusCode).toBe(200);
  const ownCampaignLink = await run(
    'review-link',
    c,
    '--name',
    'Cy',
    '--role',
    'decide',
    '--url',
    inboxOrigin,
  );
  expect((await request(ownCampaignLink.stdout.trim())).statusCode).toBe(401);
  expect((await run('review-link', '--name', 'Di')).stderr).toContain('name a campaign or give --inbox');
  const inboxExited = new Promise((resolve) => inbox.child.on('exit', resolve));
  inbox.child.kill('SIGINT');
  expect(await inboxExited).toBe(0);
}, 180_000);
