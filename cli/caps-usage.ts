/**
 * The key's real spend for its caps ledger (docs/caps.md, "Spend the ledger did not see"): the
 * service's account usage, read here with the key (which never goes to the ledger) and handed to
 * the ledger as totals per model label. Read when caps are set, and by `caps show` once the
 * ledger's last reading is from an earlier day.
 */
import { ModelPaths } from '../api/catalogue/paths.ts';
import { createServiceClient } from '../api/client/index.ts';
import type { AccountUsage } from '../contract/caps-messages.ts';
import type { CapsView } from '../control/caps.ts';
import type { ServiceConfig } from './environment.ts';

/** The account's usage; null (with the reason on stderr) when the service cannot say. */
export async function accountUsage(service: ServiceConfig): Promise<AccountUsage | null> {
  const client = createServiceClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
  try {
    const report = await client.account.usage();
    const paths = ModelPaths.fromEnv();
    const models: Record<string, number> = {};
    for (const row of report.byModel) {
      const label = paths.labelOfId(row.model);
      if (label !== undefined) models[label] = (models[label] ?? 0) + row.credits;
    }
    return { total: report.credits, models };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(
      `the service's account usage could not be read (${reason}): caps count campaigns' reports only`,
    );
    return null;
  } finally {
    await client.close();
  }
}

/** Whether the ledger's spend wants a fresh reading: never read, or last read on an earlier day. */
export function usageStale(view: CapsView | null): boolean {
  return view !== null && view.usage?.day !== view.day;
}

/** How `caps show` says where the spend comes from. */
export function usageLine(view: CapsView): string {
  if (!view.usage)
    return "spent: what campaigns on this key reported (the service's account usage not read yet)";
  const at = new Date(view.usage.at).toISOString().slice(0, 16).replace('T', ' ');
  const since =
    view.usage.dayKnown && view.usage.monthKnown
      ? 'the day and month measured from earlier readings'
      : 'with no reading from before this period, all the key ever spent counts';
  return `spent: the service's account usage read ${at} UTC (${since}), and campaigns' reports since`;
}
