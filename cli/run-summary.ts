/** What `run` leaves on stdout when a campaign ends: the summary table or, with --json, its progress. */
import type { Micros } from '../api/money.ts';
import type { CampaignView } from '../control/campaign.ts';
import { notifyLine } from './notify-line.ts';
import { moneyAsDecimal, summaryTable } from './progress-view.ts';

export function printSummary(
  { progress, closedAt }: CampaignView,
  outputDir: string,
  total: Micros | null,
  json: boolean,
): void {
  if (json) {
    const output = { ...progress, campaign_spent: total, output_dir: outputDir };
    console.log(JSON.stringify(output, moneyAsDecimal, 2));
    return;
  }
  console.log(summaryTable(progress, closedAt, total));
  console.log(`outputs: ${outputDir} (manifest.jsonl lists every file)`);
  const notices = notifyLine(progress);
  if (notices) console.log(notices);
}
