/** What `run` leaves on stdout when a campaign ends: the summary table or, with --json, its progress. */
import type { Micros } from '../api/money.ts';
import type { CampaignView } from '../control/campaign-view.ts';
import { type DeriveTally, deriveLine } from './derive-tally.ts';
import { jsonOutput } from './json-output.ts';
import { notifyLine } from './notify-line.ts';
import { summaryTable } from './progress-view.ts';

export function printSummary(
  { progress, closedAt }: CampaignView,
  outputDir: string,
  total: Micros | null,
  json: boolean,
  derived: readonly DeriveTally[] = [],
): void {
  if (json) {
    const output = { ...progress, campaign_spent: total, output_dir: outputDir, derive_steps: derived };
    process.stdout.write(jsonOutput(output));
    return;
  }
  console.log(summaryTable(progress, closedAt, total));
  const derivedLine = deriveLine(derived);
  if (derivedLine) console.log(derivedLine);
  console.log(`outputs: ${outputDir} (manifest.jsonl lists every file)`);
  const notices = notifyLine(progress);
  if (notices) console.log(notices);
}
