/**
 * The delivery activity (activities/notify/index.ts) against real receivers: a Standard Webhooks
 * one verifying with the Python `standardwebhooks` package, and a Slack-style one. Called directly:
 * Temporal's retries are the campaign test's (campaign-notify.test.ts).
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { notifyActivities } from '../../activities/notify/index.ts';
import type { NotifyRequest, NotifyTarget } from '../../contract/notify.ts';
import { closedPort, startReceiver } from '../helpers/webhook-receiver.ts';

const SECRET = `whsec_${Buffer.from('notify-test-secret-of-32-bytes!!').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('another-secret-of-32-bytes-long!').toString('base64')}`;

const completed = {
  type: 'campaign.completed' as const,
  summary: {
    steps: [{ id: 'still', succeeded: 2, cached: 0, failed: 0, skipped: 0, canceled: 0 }],
    spent: 80_000,
    budget: null,
  },
};

function request(target: NotifyTarget, id = 'msg_test_completed'): NotifyRequest {
  return {
    id,
    campaign: 'lamps',
    at: '2026-11-27T06:00:00.000Z',
    target,
    reviewUrl: null,
    notice: completed,
  };
}

const standard = (url: string): NotifyTarget => ({
  kind: 'standard',
  url,
  urlEnv: null,
  secretEnv: 'HOOK_SECRET',
  events: null,
});

/** The failure an attempt ended with, for its message and whether Temporal may retry it. */
async function failureOf(work: Promise<void>): Promise<ApplicationFailure> {
  const error = await work.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${error}`);
  return error;
}

describe('deliverNotice', () => {
  it('signs per Standard Webhooks: the Python package verifies it, under the notice id', async () => {
    const receiver = await startReceiver(SECRET);
    const { deliverNotice } = notifyActivities({ env: { HOOK_SECRET: SECRET } });
    await deliverNotice(request(standard(receiver.url)));
    await receiver.until(1);
    const [got] = receiver.received;
    expect(got).toMatchObject({
      verified: true,
      status: 204,
      headers: { 'webhook-id': 'msg_test_completed' },
    });
    expect(got!.payload).toMatchObject({
      type: 'campaign.completed',
      data: { campaign: 'lamps', spent: { usd: '0.08', micros: 80_000 } },
    });
  });

  it('a receiver that cannot verify refuses it: not retried, named by host only', async () => {
    const receiver = await startReceiver(OTHER);
    const { deliverNotice } = notifyActivities({ env: { HOOK_SECRET: SECRET } });
    const failure = await failureOf(deliverNotice(request(standard(receiver.url))));
    // The receiver reports on its stdout after it answered: wait for the line, not the reply.
    await receiver.until(1);
    expect(receiver.received[0]).toMatchObject({ verified: false, status: 400 });
    const host = new URL(receiver.url).host;
    expect(failure.message).toBe(`${host}: 400 (refused; not sent again)`);
    expect(failure.nonRetryable).toBe(true);
  });

  it('a 500 is retryable, and its words hold neither the URL path nor the secret', async () => {
    const receiver = await startReceiver(SECRET, 1);
    const { deliverNotice } = notifyActivities({ env: { HOOK_SECRET: SECRET } });
    const failure = await failureOf(deliverNotice(request(standard(receiver.url))));
    expect(failure.message).toBe(`${new URL(receiver.url).host}: 500`);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).not.toContain('path-secret');
  });

  it('a receiver not listening: retryable, in words without the URL', async () => {
    const { deliverNotice } = notifyActivities({ env: { HOOK_SECRET: SECRET } });
    const port = await closedPort();
    const failure = await failureOf(
      deliverNotice(request(standard(`http://127.0.0.1:${port}/x/path-secret`))),
    );
    expect(failure.message).toBe(`127.0.0.1:${port}: ECONNREFUSED`);
    expect(failure.nonRetryable).toBe(false);
  });

  it('Slack mode: {"text": ...} alone, unsigned, to the URL read from the variable the spec names', async () => {
    const receiver = await startReceiver(null);
    const slack: NotifyTarget = {
      kind: 'slack',
      url: null,
      urlEnv: 'SLACK_URL',
      secretEnv: null,
      events: null,
    };
    await notifyActivities({ env: { SLACK_URL: receiver.url } }).deliverNotice(request(slack));
    await receiver.until(1);
    const [got] = receiver.received;
    expect(got!.path).toBe('/hook/path-secret');
    expect(got!.payload).toEqual({
      text: 'mediaflow: campaign "lamps" completed: 2 made, 0 already done, 0 failed; spent $0.08',
    });
    expect(got!.headers['webhook-signature']).toBeUndefined();
  });

  it('a variable missing on the worker: not retried, the message names the variable', async () => {
    const { deliverNotice } = notifyActivities({ env: {} });
    const failure = await failureOf(deliverNotice(request(standard('http://127.0.0.1:1/'))));
    // Named with the process whose environment lacks it (a review server's worker, say).
    expect(failure.message).toMatch(
      /^signing secret: environment variable HOOK_SECRET is not set on the worker in mediaflow.* \(pid \d+ on .+\)$/,
    );
    expect(failure.nonRetryable).toBe(true);
    const bad = await failureOf(
      notifyActivities({ env: { HOOK_SECRET: 'not-a-secret' } }).deliverNotice(
        request(standard('http://127.0.0.1:1/')),
      ),
    );
    expect(bad.message).toBe('$HOOK_SECRET does not hold a Standard Webhooks secret (whsec_ and base64)');
  });
});
