/**
 * The service's own prices (POST /v1/estimate) for a set of jobs, asked once per distinct priced
 * input: model + every parameter except the prompt and image fields. No published price rule
 * depends on those (service-spec.md part 8.3), so a 5,000-job sweep over prompts costs a handful
 * of calls. Image fields are sent as a tiny inline picture, since a chained job's parent output
 * does not exist before the run. Shared by `estimate` and `run`'s preflight.
 */
import pLimit from 'p-limit';
import { MODELS, type ModelLabel } from '../api/catalogue/index.ts';
import { retryRead, type ServiceClient } from '../api/client/index.ts';
import type { Micros } from '../api/money.ts';
import { canonicalJson } from '../plan/keys.ts';
import type { PlannedJob } from '../plan/types.ts';

/** A 1×1 transparent PNG: a valid image for fields the estimate needs but the price ignores. */
const PLACEHOLDER_IMAGE =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

export interface PriceGroup {
  readonly model: ModelLabel;
  /** The input sent to the service (prompt of the first job of the group, placeholder images). */
  readonly input: Record<string, unknown>;
  readonly jobs: number;
  /** Per job; null when the catalogue does not know the price (V5). */
  readonly localUsd: Micros | null;
  /** Per job, from POST /v1/estimate. */
  readonly serviceUsd: Micros;
}

export interface ServicePrices {
  readonly groups: readonly PriceGroup[];
  /** The service's price of each job, by job key. */
  readonly byKey: ReadonlyMap<string, Micros>;
}

export type EstimatingClient = Pick<ServiceClient, 'estimate'>;

export async function servicePrices(
  client: EstimatingClient,
  jobs: readonly PlannedJob[],
  concurrency = 8,
): Promise<ServicePrices> {
  const pending = new Map<
    string,
    { model: ModelLabel; input: Record<string, unknown>; jobs: PlannedJob[]; localUsd: Micros | null }
  >();
  for (const job of jobs) {
    const id = priceIdentity(job.model, job.input);
    const group = pending.get(id);
    if (group) group.jobs.push(job);
    else
      pending.set(id, {
        model: job.model,
        input: forEstimate(job.model, job.input),
        jobs: [job],
        localUsd: job.usd,
      });
  }
  const limit = pLimit(concurrency);
  const byKey = new Map<string, Micros>();
  const groups = await Promise.all(
    [...pending.values()].map((group) =>
      limit(async (): Promise<PriceGroup> => {
        // An estimate changes nothing on the service, so a passing fault is simply asked again.
        const serviceUsd = await retryRead(() => client.estimate(group.model, group.input));
        for (const job of group.jobs) byKey.set(job.key, serviceUsd);
        return {
          model: group.model,
          input: group.input,
          jobs: group.jobs.length,
          localUsd: group.localUsd,
          serviceUsd,
        };
      }),
    ),
  );
  return { groups, byKey };
}

function priceIdentity(model: ModelLabel, input: Readonly<Record<string, unknown>>): string {
  const priced = Object.fromEntries(
    Object.entries(input).filter(([name]) => name !== 'prompt' && !MODELS[model].imageFields.includes(name)),
  );
  return `${model} ${canonicalJson(priced)}`;
}

function forEstimate(model: ModelLabel, input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const images = MODELS[model].imageFields;
  return Object.fromEntries(
    Object.entries(input).map(([name, value]) => [name, images.includes(name) ? PLACEHOLDER_IMAGE : value]),
  );
}
