/**
 * What `run`'s preflight says of the key's spend caps (docs/caps.md): for each cap, the room left
 * after what every campaign has spent in its period and the running ones have committed, and
 * whether this plan's price fits in it. A plan that does not fit still starts: it pauses at the
 * cap (never fails), so this is said, not refused.
 */
import type { Micros } from '../api/money.ts';
import { capDollars } from '../contract/caps.ts';
import { type CapsView, readCaps, reportUsage } from '../control/caps.ts';
import { keyNames } from '../control/governor.ts';
import { accountUsage, usageStale } from './caps-usage.ts';
import type { Environment } from './environment.ts';

/**
 * The preflight's lines for the key's ledger. A new day since the ledger last read the key's real
 * spend: it is read now, before this campaign asks (the lines show the ledger as it stood).
 */
export async function preflightCaps(
  env: Environment,
  cost: Micros,
  costByModel: Readonly<Record<string, Micros>>,
): Promise<string[]> {
  const key = keyNames(env.service.baseUrl, env.service.apiKey).caps;
  const view = await readCaps(env.client, key);
  const usage = usageStale(view) ? await accountUsage(env.service) : null;
  if (usage) await reportUsage(env.client, key, usage);
  return capsLines(view, cost, costByModel);
}

export function capsLines(
  view: CapsView | null,
  cost: Micros,
  costByModel: Readonly<Record<string, Micros>>,
): string[] {
  if (!view) return [];
  return view.lines.map((line) => {
    const name = `${line.cap}${line.model === null ? '' : ` ${line.model}`} cap ${capDollars(line.limit)}`;
    const room = Math.max(0, line.limit - line.spent - line.committed);
    const price = line.model === null ? cost : (costByModel[line.model] ?? 0);
    const taken = `spent ${capDollars(line.spent)}, committed ${capDollars(line.committed)} by running campaigns`;
    const verdict =
      price <= room
        ? `this plan's ${capDollars(price)} fits`
        : `this plan's ${capDollars(price)} does not fit: it pauses at the cap until it is raised or the period turns`;
    return `${name}: ${capDollars(room)} left (${taken}); ${verdict}`;
  });
}
