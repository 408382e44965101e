/**
 * A capped campaign's side of its key's caps ledger (caps.ts), as messages: what the reducer
 * tells the ledger (reducer/effects.ts, CapsNote) is signalled here, and each grant or alert the
 * ledger signals is handed to the reducer as an event (engine/caps.ts decides what it changes).
 *
 * A campaign started by this version names its execution in every note (its first run id, the
 * same across continue-as-new) and sends cumulative figures (contract/caps-messages.ts). One whose
 * history predates that (no `caps-notes-by-execution` marker, or carried from such a run) sends
 * the notes it always sent, so its replay issues the same commands.
 */
import { getExternalWorkflowHandle, log, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { CampaignInput } from '../../contract/campaign.ts';
import type { CarriedAllowance } from '../../contract/caps.ts';
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
import { messageOf } from '../failure-of.ts';

const BY_EXECUTION = 'caps-notes-by-execution';

/** The campaign's link to its key's caps ledger; null when its client named none (no caps set). */
export function capsLinkOf(input: CampaignInput): CapsLink | null {
  if (input.caps === undefined) return null;
  const carried = input.carried?.caps;
  const run = carried
    ? (carried.run ?? null)
    : patched(BY_EXECUTION)
      ? workflowInfo().firstExecutionRunId
      : null;
  return new CapsLink(input.caps.key, workflowInfo().workflowId, run, input.caps.priority);
}

export class CapsLink {
  private readonly ledger: string;
  private readonly campaign: string;
  /** The execution its notes name; null: notes as older versions sent them. */
  readonly run: string | null;
  private readonly priority: number | undefined;

  constructor(key: string, campaign: string, run: string | null, priority?: number) {
    this.ledger = capsWorkflowId(key);
    this.campaign = campaign;
    this.run = run;
    this.priority = priority;
  }

  /** What the campaign's allowance starts from: what it carried, or nothing but its execution. */
  carried(carried: CarriedAllowance | undefined): CarriedAllowance | undefined {
    if (carried || this.run === null) return carried;
    return { reserved: [], unreported: [], hold: null, run: this.run };
  }

  /** Every grant and alert from now on goes to `dispatch` as an event. */
  follow(dispatch: (event: CampaignEvent) => void): void {
    setHandler(capsGrantSignal, (grant) => {
      // Meant for an earlier execution of this workflow id (a late grant to a run that ended).
      if (grant.run !== undefined && grant.run !== this.run) return;
      dispatch({ kind: 'caps-grant', grant });
    });
    setHandler(capsAlertSignal, (alert) => dispatch({ kind: 'cap-alert', alert }));
  }

  async tell(note: CapsNote): Promise<void> {
    const campaign = this.campaign;
    const by = this.run === null ? {} : { run: this.run };
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
            ...by,
            ...(this.run !== null && note.seq !== undefined && { seq: note.seq }),
          });
          return;
        case 'spent':
        case 'leave': {
          const totals =
            this.run === null
              ? {}
              : {
                  ...(note.total && { total: note.total }),
                  ...(note.returned && { returned: note.returned }),
                };
          const signal = note.kind === 'spent' ? capsSpentSignal : capsLeaveSignal;
          await handle.signal(signal, { campaign, spent: note.spent, ...by, ...totals });
          return;
        }
      }
    } catch (error) {
      // No grant comes without the ledger: the campaign stays held (it never spends past a cap).
      log.warn('caps ledger unreachable', { ledger: this.ledger, reason: messageOf(error) });
    }
  }
}
