/**
 * mediaflow's Temporal client reads a page of history larger than gRPC's default 4 MiB
 * (worker/connection.ts, CLIENT_CHANNEL_ARGS): a wide campaign's page came to 4.8 MiB, and a
 * client on the default limit failed with RESOURCE_EXHAUSTED.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectClient } from '../../worker/connection.ts';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';

/** Under the server's 2 MB limit per payload; four of them make a page of about 6 MiB. */
const SIGNAL_BYTES = 1_500_000;

describe("mediaflow's Temporal client", () => {
  it('reads a history page of more than 4 MiB', async () => {
    const { client, connection } = await connectClient({ localAddress: temporalAddress() });
    onTestFinished(() => connection.close());
    // No worker polls this queue: the run only holds the signals' events, then is terminated.
    const handle = await client.workflow.start('noWorkerRunsThis', {
      taskQueue: uniqueTaskQueue('large-history'),
      workflowId: uniqueTaskQueue('large-history'),
    });
    onTestFinished(async () => {
      await handle.terminate('test over').catch(() => undefined);
    });
    for (let i = 0; i < 4; i += 1)
      await handle.signal('filler', randomBytes(SIGNAL_BYTES).toString('base64'));
    const history = await handle.fetchHistory();
    const signals = (history.events ?? []).flatMap((event) =>
      event.workflowExecutionSignaledEventAttributes ? [event.workflowExecutionSignaledEventAttributes] : [],
    );
    const bytes = signals.reduce((sum, signal) => sum + (signal.input?.payloads?.[0]?.data?.length ?? 0), 0);
    expect(signals).toHaveLength(4);
    expect(bytes).toBeGreaterThan(4 * 1024 * 1024);
  });
});
