/**
 * Once a campaign is over, what finish attempts killed mid-write left of its own jobs' files
 * (activities/finish/sweep.ts) is removed: a retry never clears another attempt's writes, which
 * may still be under way, and an attempt killed mid-write leaves its temporary file behind.
 */
import { isCancellation, log } from '@temporalio/workflow';
import type { PlanRef } from '../../contract/campaign.ts';
import { sweepUnfinished } from './activities.ts';

export async function sweepAtEnd(context: {
  readonly plan: PlanRef;
  readonly outputDir: string;
}): Promise<void> {
  try {
    const removed = await sweepUnfinished({ plan: context.plan, outputDir: context.outputDir });
    if (removed > 0) log.info('removed temporary files of killed attempts', { count: removed });
  } catch (error) {
    if (isCancellation(error)) throw error;
    // The campaign's outputs and money are settled: leftovers are only clutter, named here.
    log.warn('temporary files of killed attempts were left in place', { error: String(error) });
  }
}
