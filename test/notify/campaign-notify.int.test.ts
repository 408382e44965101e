/**
 * Notices from a real campaign (Temporal dev server, emulator, in-process worker): a wave of stills
 * awaiting review announced once with the sheet's link, the end announced to a Standard Webhooks
 * receiver (verified in Python) that fails twice first, to a Slack-style one whose URL is a
 * secret, and to one that is down: the campaign completes all the same, the down one is in the
 * progress, and no secret or secret URL is in the workflow's history.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { notifyLine } from '../../cli/notify-line.ts';
import { workflowIdOf } from '../../control/campaign.ts';
import { harness } from '../engine/harness.ts';
import { keysOf, review } from '../engine/review-client.ts';
import { closedPort, startReceiver } from '../helpers/webhook-receiver.ts';

const SECRET = `whsec_${Buffer.from('campaign-notify-secret-32-bytes!').toString('base64')}`;

describe('notices from a campaign', () => {
  it('review awaiting, then completed: retried under one id, never failing the campaign', async () => {
    const h = await harness();
    const standard = await startReceiver(SECRET, 2);
    const slack = await startReceiver(null);
    const dead = await closedPort();
    process.env.MF_TEST_NOTIFY_SECRET = SECRET;
    process.env.MF_TEST_SLACK_URL = slack.url;
    onTestFinished(() => {
      delete process.env.MF_TEST_NOTIFY_SECRET;
      delete process.env.MF_TEST_SLACK_URL;
    });
    const plan = await h.plan(`
version: 1
campaign: notify
budget: { max_usd: 10 }
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: 2
    input: { prompt: "A lamp on an oak table" }
    review: true
notify:
  review_url: https://review.example.com/sheets/{campaign}
  targets:
    - url: ${standard.url}
      secret_env: MF_TEST_NOTIFY_SECRET
    - url_env: MF_TEST_SLACK_URL
      kind: slack
    - url: http://127.0.0.1:${dead}/down
      secret_env: MF_TEST_NOTIFY_SECRET
      events: [campaign.completed]
`);
    const progress = await h.run(plan, async (handle) => {
      // The review.awaiting notice is the Slack receiver's first message: then both stills wait.
      await slack.until(1);
      expect(slack.received[0]!.payload!.text).toBe(
        `mediaflow: 2 takes await review in campaign "${plan.campaign}" (still: 2); review them at <https://review.example.com/sheets/${plan.campaign}>`,
      );
      await review(
        handle,
        keysOf(plan, 'still').map((key) => ({ key, action: 'approve' as const })),
      );
    });

    expect(progress.outcome).toBe('completed');
    // Standard receiver: its first two deliveries failed (500) and were tried again under the same
    // id; each notice taken once (the campaign did not wait: completed may overtake a retry).
    // Every delivery verified in Python.
    expect(standard.received.every((r) => r.verified)).toBe(true);
    expect(standard.received.filter((r) => r.status === 500)).toHaveLength(2);
    const taken = ['review.awaiting', 'campaign.completed'].map((type) => {
      const attempts = standard.received.filter((r) => r.payload!.type === type);
      expect(new Set(attempts.map((r) => r.headers['webhook-id'])).size, type).toBe(1);
      const ok = attempts.filter((r) => r.status === 204);
      expect(
        ok.map((r) => r.duplicate),
        type,
      ).toEqual([false]);
      return ok[0]!;
    });
    expect(taken[0]!.headers['webhook-id']).not.toBe(taken[1]!.headers['webhook-id']);
    expect(taken[0]!.payload!.data).toMatchObject({
      awaiting: 2,
      review_url: `https://review.example.com/sheets/${plan.campaign}`,
    });
    expect(taken[1]!.payload!.data).toMatchObject({
      outcome: 'completed',
      steps: [{ step: 'still', succeeded: 2, failed: 0 }],
      spent: { micros: progress.spent },
    });
    expect(slack.received.map((r) => Object.keys(r.payload!))).toEqual([['text'], ['text']]);
    expect(slack.received[1]!.payload!.text).toMatch(/completed: 2 made, 0 already done, 0 failed; spent \$/);

    // The receiver that is down: given up on after its retries, told in status, the campaign intact.
    expect(progress.notifications).toEqual({
      delivered: 4,
      failed: 1,
      failures: [`127.0.0.1:${dead}: ECONNREFUSED`],
    });
    expect(notifyLine(progress)).toBe(
      `notifications: 1 failed to deliver to 127.0.0.1:${dead}: ECONNREFUSED`,
    );

    // Nothing secret reached history: payloads read as text, every run of the campaign.
    const history = await h.temporal.workflow.getHandle(workflowIdOf(plan.campaign)).fetchHistory();
    const text = JSON.stringify(history, (key, value) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
    expect(text).toContain('MF_TEST_NOTIFY_SECRET'); // the payloads were read: the name is there
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice(6));
    expect(text).not.toContain(slack.url);
  }, 180_000);
});
