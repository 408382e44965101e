/**
 * A capped campaign's side of its key's caps ledger (caps.ts), as messages: what the reducer
 * tells the ledger (reducer/effects.ts, CapsNote) is signalled here, and each grant or alert the
 * ledger signals is handed to the reducer as an event (reducer/caps.ts decides what it changes).
 */
import { getExternalWorkflowHandle, log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { CampaignInput } from '../../contract/campaign.ts';
import {
  capsAlertSignal,
  capsAskSignal,
  capsGrantSignal,
  capsLeaveSignal,
  capsSpentSignal,
  capsWorkflowId,
} from '../../contract/caps-messages.ts';
import type { CapsNote } from '../engine/effects.ts';
import type { CampaignEvent } from '../engine/events.ts';
import { messageOf } from '../runtime/failure-of.ts';

/** The campaign's link to its key's caps ledger; null when its client named none (no caps set). */
export function capsLinkOf(input: CampaignInput): CapsLink | null {
  return input.caps === undefined
    ? null
    : new CapsLink(input.caps.key, workflowInfo().workflowId, input.caps.priority);
}

export class CapsLink {
  private readonly ledger: string;
  private readonly campaign: string;
  private readonly priority: number | undefined;

  constructor(key: string, campaign: string, priority?: number) {
    this.ledger = capsWorkflowId(key);
    this.campaign = campaign;
    this.priority = priority;
  }

  /** Every grant and alert from now on goes to `dispatch` as an event. */
  follow(dispatch: (event: CampaignEvent) => void): void {
    setHandler(capsGrantSignal, (grant) => dispatch({ kind: 'caps-grant', grant }));
    setHandler(capsAlertSignal, (alert) => dispatch({ kind: 'cap-alert', alert }));
  }

  async tell(note: CapsNote): Promise<void> {
    const campaign = this.campaign;
    try {
      const handle = getExternalWorkflowHandle(this.ledger);
      switch (note.kind) {
        case 'ask':
          await handle.signal(capsAskSignal, {
            campaign,
            model: note.model,
            unit: note.unit,
            count: note.count,
            ...(this.priority !== undefined && { priority: this.priority }),
          });
          return;
        case 'spent':
          await handle.signal(capsSpentSignal, { campaign, spent: note.spent });
          return;
        case 'leave':
          await handle.signal(capsLeaveSignal, { campaign, spent: note.spent });
          return;
      }
    } catch (error) {
      // No grant comes without the ledger: the campaign stays held (it never spends past a cap).
      log.warn('caps ledger unreachable', { ledger: this.ledger, reason: messageOf(error) });
    }
  }
}
