/**
 * The emulator's fault knobs seen through the client: each failure arrives as the ServiceError
 * that tells the engine what to do next (retry, and reconcile first when a create may exist).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { freshKey, serviceError, useEmulator } from './harness.ts';

const contract = useEmulator({ seed: 7 });
afterEach(() => contract.emulator.setFaults({ serverErrorRate: 0, dropConnectionRate: 0 }));

describe('faults through the client', () => {
  it('a connection dropped after the create is "maybe created"; the retry with the same key charges once', async () => {
    const { client, emulator } = contract;
    const key = freshKey();
    emulator.setFaults({ dropConnectionRate: 1 });
    const error = await serviceError(() =>
      client.predictions.create('I2', { prompt: 'x' }, { idempotencyKey: key }),
    );
    expect(error).toMatchObject({ status: null, type: 'network_error', retryable: true, maybeCreated: true });
    emulator.setFaults({ dropConnectionRate: 0 });
    const retried = await client.predictions.create('I2', { prompt: 'x' }, { idempotencyKey: key });
    expect(retried.status).not.toBe('unknown');
    expect(emulator.ledger().byIdempotencyKey[key]).toBe(1);
  });

  it('a 503 is retryable, and a create that met one is treated as maybe created', async () => {
    const { client, emulator } = contract;
    emulator.setFaults({ serverErrorRate: 1 });
    const onCreate = await serviceError(() =>
      client.predictions.create('I2', { prompt: 'x' }, { idempotencyKey: freshKey() }),
    );
    expect(onCreate).toMatchObject({ status: 503, type: 'api_error', retryable: true, maybeCreated: true });
    const onRead = await serviceError(() => client.account.balance());
    expect(onRead).toMatchObject({ status: 503, retryable: true, maybeCreated: false });
  });
});
