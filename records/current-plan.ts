/**
 * Which plan each campaign last ran: `run` writes the digest of the plan it starts to
 * `.mediaflow/current/<campaign>.json`, replacing the one before. The manifest lists as current
 * only the outputs of those plans' jobs (manifest-view.ts): after an edit, a job of the old plan
 * that the new one no longer has is superseded, whatever its record says.
 *
 * An output location written before this existed has no such file: there, every record counts as
 * current, as it always did, until the next `run` names its plan.
 */
import { z } from 'zod';
import { CURRENT_PLANS, currentPlanKey, openPlan, PlanDamaged, type Store } from '../store/index.ts';
import { parseJson } from './jsonl.ts';

export const CurrentPlan = z.object({ campaign: z.string(), digest: z.string(), at: z.string() });
export type CurrentPlan = z.infer<typeof CurrentPlan>;

export async function writeCurrentPlan(store: Store, campaign: string, digest: string): Promise<void> {
  const record: CurrentPlan = { campaign, digest, at: new Date().toISOString() };
  await store.put(currentPlanKey(campaign), `${JSON.stringify(record)}\n`);
}

export interface CurrentPlans {
  /** The campaigns that named their plan here. */
  readonly campaigns: readonly string[];
  /** Every job key of those plans. */
  readonly keys: ReadonlySet<string>;
  /** The parent key of each of their chained jobs. */
  readonly parents: ReadonlyMap<string, string>;
}

/**
 * The current plans of every campaign writing to this location, or null when none named one (or
 * one cannot be read: then nothing can be called superseded, and every record stays listed).
 */
export async function readCurrentPlans(store: Store): Promise<CurrentPlans | null> {
  const campaigns: string[] = [];
  const keys = new Set<string>();
  const parents = new Map<string, string>();
  for await (const name of store.list(CURRENT_PLANS)) {
    const parsed = CurrentPlan.safeParse(parseJson((await store.read(name)) ?? ''));
    if (!parsed.success) return null;
    campaigns.push(parsed.data.campaign);
    try {
      const plan = await openPlan(store, parsed.data.digest);
      for (let n = 0; n * plan.pageSize < plan.jobCount; n++) {
        for (const job of await plan.page(n)) {
          const { key, parent } = job as { key?: unknown; parent?: unknown };
          if (typeof key !== 'string') continue;
          keys.add(key);
          if (typeof parent === 'string') parents.set(key, parent);
        }
      }
    } catch (error) {
      if (error instanceof PlanDamaged) return null;
      throw error;
    }
  }
  return campaigns.length === 0 ? null : { campaigns, keys, parents };
}

/** The plan `campaign` last ran here, or null when it named none (or its record does not parse). */
export async function readCurrentPlan(store: Store, campaign: string): Promise<CurrentPlan | null> {
  const parsed = CurrentPlan.safeParse(parseJson((await store.read(currentPlanKey(campaign))) ?? ''));
  return parsed.success ? parsed.data : null;
}
