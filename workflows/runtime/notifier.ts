/**
 * Carries out `step`'s `notify` effects (engine/notices/notify.ts): one deliverNotice activity per
 * target the effect names (those that want the notice), started and never awaited on the way, so a slow or dead receiver
 * neither blocks nor fails the campaign. Each delivery's end comes back as a `notified` event;
 * the campaign waits for deliveries still under way only as it completes, so its last notice is
 * sent before the workflow closes (a closed workflow's activities are dropped).
 */
import { isCancellation, workflowInfo } from '@temporalio/workflow';
import type { CampaignInput } from '../../contract/campaign.ts';
import type { Notice, NotifyTarget } from '../../contract/notify.ts';
import type { CampaignEvent } from '../engine/events.ts';
import { messageOf } from '../failure-of.ts';
import { deliverNotice } from './activities.ts';

export function notifier(input: CampaignInput, dispatch: (event: CampaignEvent) => void) {
  const sending: Promise<void>[] = [];

  async function deliver(id: string, target: NotifyTarget, notice: Notice, at: string): Promise<void> {
    let failure: string | null = null;
    try {
      await deliverNotice.executeWithOptions({ summary: `notify ${labelOf(target)}: ${notice.type}` }, [
        { id, campaign: input.campaign, at, target, reviewUrl: input.notify?.reviewUrl ?? null, notice },
      ]);
    } catch (error) {
      if (isCancellation(error)) return;
      const message = messageOf(error);
      failure = message.startsWith(`${labelOf(target)}:`) ? message : `${labelOf(target)}: ${message}`;
    }
    dispatch({ kind: 'notified', failure });
  }

  return {
    /** To each of `targets`: those that want the notice, as `step` addressed it. */
    send(key: string, notice: Notice, targets: readonly NotifyTarget[]): void {
      // Unique per campaign run chain (continue-as-new keeps the first run's id), stable on replay.
      const id = `msg_${workflowInfo().firstExecutionRunId}_${key}`;
      const at = new Date().toISOString();
      for (const target of targets) sending.push(deliver(id, target, notice, at));
    },
    /** Every delivery started has ended (delivered or given up on). */
    async settled(): Promise<void> {
      while (sending.length > 0) await Promise.all(sending.splice(0));
    },
  };
}

/** A target as messages name it: its URL's host, or the variable holding its URL (never a path). */
export function labelOf(target: NotifyTarget): string {
  if (target.url === null) return `$${target.urlEnv}`;
  return /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]+)/i.exec(target.url)?.[1] ?? 'notify target';
}
