/**
 * The emulator's content policy (emulator/predictions/refusals.ts, docs/service-assumptions.md,
 * "Content refusals"): a refused prompt creates and charges nothing, a flagged output is charged;
 * marker words make either happen on purpose, the knobs by chance (seeded).
 */
import { describe, expect, it } from 'vitest';
import { createBody, I1, settled, useEmulator } from './helpers.ts';

const I4 = '/mf-i4/i4-base/predictions';

describe('content refusals', () => {
  const { call, emulator } = useEmulator({ seed: 11, credits: '10.00' });
  const balance = async () => (await call('GET', '/account/balance')).body.credits as string;

  it('[refuse]: 400 CONTENT_REFUSED at create, nothing created, nothing charged', async () => {
    const before = { balance: await balance(), ledger: emulator().ledger() };
    const reply = await call('POST', I1, createBody({ prompt: 'a watch [refuse]' }));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'CONTENT_REFUSED', param: 'input.prompt' });
    expect(await balance()).toBe(before.balance);
    const after = emulator().ledger();
    expect(after.predictionsCreated).toBe(before.ledger.predictionsCreated);
    expect(after.refusedPrompts).toBe(before.ledger.refusedPrompts + 1);
  });

  it('[refuse:I1] refuses on I1 only: the same prompt passes on another model', async () => {
    const prompt = 'a sneaker [refuse:I1]';
    expect((await call('POST', I1, createBody({ prompt }))).status).toBe(400);
    const other = await call('POST', I4, createBody({ prompt }));
    expect(other.status).toBe(200);
    expect((await settled(call, other.body.id)).status).toBe('succeeded');
  });

  it('[flag]: the prediction ends failed OUTPUT_FLAGGED, with no output, and stays charged', async () => {
    const before = await balance();
    const created = await call('POST', I1, createBody({ prompt: 'a backpack [flag]' }));
    expect(created.status).toBe(200);
    const ended = await settled(call, created.body.id);
    expect(ended).toMatchObject({
      status: 'failed',
      credits_used: '0.12',
      error: { code: 'OUTPUT_FLAGGED' },
      output_data: { urls: [] },
    });
    expect(Number(before) - Number(await balance())).toBeCloseTo(0.12, 6);
    expect(emulator().ledger().flaggedOutputs).toBeGreaterThanOrEqual(1);
  });

  it('[flag:1]: the first output of that input is flagged, a new take of it passes', async () => {
    const body = createBody({ prompt: 'a lamp [flag:1]' });
    const first = await call('POST', I1, body, { headers: { 'idempotency-key': 'lamp-r0' } });
    const second = await call('POST', I1, body, { headers: { 'idempotency-key': 'lamp-r1' } });
    expect((await settled(call, first.body.id)).status).toBe('failed');
    expect((await settled(call, second.body.id)).status).toBe('succeeded');
  });

  it('a replayed idempotency key of a created prediction is answered with it, not refused', async () => {
    // The marker counts outputs, not requests: the replay is the same prediction.
    const body = createBody({ prompt: 'a chair [flag:1]' });
    const first = await call('POST', I1, body, { headers: { 'idempotency-key': 'chair-r0' } });
    const again = await call('POST', I1, body, { headers: { 'idempotency-key': 'chair-r0' } });
    expect(again.body.id).toBe(first.body.id);
  });

  it('the knobs refuse and flag at their rates, and the batch reports a refusal per item', async () => {
    emulator().setFaults({ refusePromptRate: 1 });
    const batch = await call('POST', '/predictions/batch', {
      requests: [
        { model: 'mf-i1/i1-base', input: { prompt: 'plain' }, image_count: 1, idempotency_key: 'plain-r0' },
      ],
    });
    emulator().setFaults({ refusePromptRate: 0, flagOutputRate: 1 });
    expect(batch.body.items[0].error).toMatchObject({ code: 'CONTENT_REFUSED' });
    const flagged = await call('POST', I1, createBody({ prompt: 'also plain' }));
    emulator().setFaults({ flagOutputRate: 0 });
    expect((await settled(call, flagged.body.id)).error).toMatchObject({ code: 'OUTPUT_FLAGGED' });
  });
});
