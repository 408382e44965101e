/**
 * Two campaigns never share a prediction: idempotency keys are scoped to the campaign, and
 * `cancel` stops only its own campaign's predictions, even when both write to one folder.
 */
import { describe, expect, it } from 'vitest';
import { createKey } from '../../activities/create/keys.ts';
import { TERMINAL_STATUSES } from '../../api/wire/index.ts';
import { activitiesFor, cancelOutstanding, create, predictionIdOf } from './activity-env.ts';
import { harness } from './harness.ts';

const spec = (campaign: string, dir: string) => `
version: 1
campaign: ${campaign}
output: { dir: ${dir} }
steps:
  - id: still
    model: I4
    input: { prompt: "The same prompt in two campaigns" }
`;

describe('campaign scope', () => {
  it('gives a second campaign with the same prompt its own prediction, not the first one', async () => {
    const h = await harness();
    const spring = await h.plan(spec('spring', 'out-spring'));
    const autumn = await h.plan(spec('autumn', 'out-autumn'));
    expect(autumn.jobs[0]!.key).toBe(spring.jobs[0]!.key);
    const first = predictionIdOf((await create(h, spring, 1, [0]))[0]);
    const second = predictionIdOf((await create(h, autumn, 1, [0]))[0]);
    expect(second).not.toBe(first);
    expect(h.emulator.ledger().predictionsCreated).toBe(2);
  });

  it('keeps idempotency keys within the service limit of 255 characters', () => {
    const key = createKey({
      campaign: 'c'.repeat(64),
      jobKey: 'a'.repeat(32),
      regen: 99,
      replaces: 'p'.repeat(500),
    });
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('cancels only its own predictions when two campaigns share an output folder', async () => {
    const h = await harness({ latencyMs: 60_000, jitter: false, timeScale: 1 });
    const spring = await h.plan(spec('spring', 'shared'));
    const autumn = await h.plan(spec('autumn', 'shared'));
    expect(autumn.outputDir).toBe(spring.outputDir);
    const activities = activitiesFor(h);
    const ours = predictionIdOf((await create(h, spring, 1, [0], 0, activities))[0]);
    const theirs = predictionIdOf((await create(h, autumn, 1, [0], 0, activities))[0]);
    expect(await cancelOutstanding(activities, spring)).toBe(1);
    expect((await h.service.predictions.get(ours)).status).toBe('canceled');
    expect(TERMINAL_STATUSES.has((await h.service.predictions.get(theirs)).status)).toBe(false);
  });
});
