/** What `run` leaves on stdout when a campaign ends: the summary table or, with --json, its progress. */
import type { Micros } from '../api/money.ts';
import type { CampaignView } from '../control/campaign-view.ts';
import { jsonOutput } from './json-output.ts';
import { notifyLine } from './notify-line.ts';
import { summaryTable } from './progress-view.ts';

export function printSummary(
  { progress, closedAt }: CampaignView,
  outputDir: string,
  total: Micros | null,
  json: boolean,
): void {
  if (json) {
    const output = { ...progress, campaign_spent: total, output_dir: outputDir };
    process.stdout.write(jsonOutput(output));
    return;
  }
  console.log(summaryTable(progress, closedAt, total));
  console.log(`outputs: ${outputDir} (manifest.jsonl lists every file)`);
  const notices = notifyLine(progress);
  if (notices) console.log(notices);
}
