/**
 * The inbox (docs/review.md, "The inbox"): one line per campaign that has takes awaiting a
 * decision, how many per reviewed step, and since when the oldest has waited. A take waits from
 * the moment its file was saved (its manifest line's `finished_at`): that is when the workflow
 * began holding it for review. A reviewed derive step's files count as its step's, waiting from
 * their parent's save (they are made right after it). Pure: rows from a campaign's read model,
 * tested as a table.
 */
import type { ManifestEntry } from '../records/manifest.ts';
import type { CampaignModel } from './model.ts';

export interface InboxRow {
  readonly campaign: string;
  /** Takes awaiting a decision, all steps together. */
  readonly awaiting: number;
  /** Per reviewed step with any waiting, in the plan's order. */
  readonly steps: readonly { readonly id: string; readonly awaiting: number }[];
  /** When the oldest waiting take was saved (ISO); null when no saved time is known. */
  readonly oldestSince: string | null;
}

/**
 * The campaign's row, or null when nothing of it awaits review. `entries` are the manifest lines
 * the model was built from (ModelSources.entries): they say when each take was saved.
 */
export function inboxRow(
  model: CampaignModel,
  entries: ReadonlyMap<string, Pick<ManifestEntry, 'finished_at'>>,
): InboxRow | null {
  let oldest: string | null = null;
  const steps: { id: string; awaiting: number }[] = [];
  const sheets = [
    ...model.steps.map((step) => ({
      id: step.id,
      waiting: step.items.filter((item) => item.state === 'awaiting'),
    })),
    ...model.channels.map((channel) => ({
      id: channel.id,
      waiting: channel.items.flatMap((card) => (card.state === 'awaiting' ? [{ key: card.parent }] : [])),
    })),
  ];
  for (const { id, waiting } of sheets) {
    if (waiting.length === 0) continue;
    steps.push({ id, awaiting: waiting.length });
    for (const item of waiting) {
      const since = entries.get(item.key)?.finished_at;
      // ISO-8601 UTC text orders as time does.
      if (since && (oldest === null || since < oldest)) oldest = since;
    }
  }
  if (steps.length === 0) return null;
  const awaiting = steps.reduce((sum, step) => sum + step.awaiting, 0);
  return { campaign: model.campaign, awaiting, steps, oldestSince: oldest };
}

/** Longest wait first: the campaign someone has kept waiting most is the one to open. */
export function inboxOrder(rows: readonly InboxRow[]): InboxRow[] {
  const since = (row: InboxRow) => row.oldestSince ?? '\uffff';
  return [...rows].sort((a, b) => since(a).localeCompare(since(b)) || a.campaign.localeCompare(b.campaign));
}

/** "45 s", "12 min", "3 h 05 min", "2 d 4 h": how long a person reads a wait. */
export function waitedFor(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
