/**
 * The spend caps of one API key (docs/caps.md): a long-lived workflow per key fingerprint that
 * keeps the caps and the ledger of the current UTC day and month, grants campaigns reservations
 * within the caps, holds the asks a cap stops, and tells a campaign when a threshold is crossed.
 * Its own workflow, not the rate governor's: a governor ends a minute after its last campaign,
 * caps must outlive every campaign. Decisions are the ledger's (ledger.ts); this runs them.
 * Its state is in its memo (`caps`), so `caps show` and preflight read it without a worker.
 */
import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { nextTurnMs } from '../../contract/caps.ts';
import {
  capsAlertSignal,
  capsAskSignal,
  capsGrantSignal,
  capsLeaveSignal,
  capsSetSignal,
  capsSpentSignal,
} from '../../contract/caps-messages.ts';
import { messageOf } from '../runtime/failure-of.ts';
import { emptyLedger, Ledger, type LedgerOut, type LedgerState } from './ledger.ts';
import { viewOf } from './view.ts';

const MAX_EVENTS = 5_000;

export interface CapsInput {
  readonly key: string;
  readonly carried?: LedgerState;
}

export async function capsWorkflow(input: CapsInput): Promise<void> {
  const ledger = new Ledger(input.carried ?? emptyLedger(Date.now()));
  let outs: LedgerOut[] = [];
  let changed = true; // a new run publishes its memo once
  const take = (more: LedgerOut[]) => {
    outs.push(...more);
    changed = true;
  };

  setHandler(capsSetSignal, (caps) => take(ledger.setCaps(caps, Date.now())));
  setHandler(capsAskSignal, (ask) => take(ledger.ask(ask, Date.now())));
  setHandler(capsSpentSignal, ({ campaign, spent }) => take(ledger.spent(campaign, spent, Date.now())));
  setHandler(capsLeaveSignal, ({ campaign, spent }) => take(ledger.leave(campaign, spent, Date.now())));

  async function send(out: LedgerOut): Promise<void> {
    try {
      const handle = getExternalWorkflowHandle(out.campaign);
      if (out.kind === 'alert') await handle.signal(capsAlertSignal, out.alert);
      else await handle.signal(capsGrantSignal, { model: out.model, micros: out.micros, hold: out.hold });
    } catch (error) {
      // Ended without leaving (terminated): what it reserved goes back.
      log.info('campaign gone: its reservation goes back', {
        campaign: out.campaign,
        reason: messageOf(error),
      });
      take(ledger.leave(out.campaign, {}, Date.now()));
    }
  }

  for (;;) {
    // The day's turn wakes the loop: a new day's (or month's) spend starts at 0.
    const woken = await condition(() => changed, Math.max(1, nextTurnMs(Date.now()) - Date.now()));
    if (!woken) take(ledger.turn(Date.now()));
    changed = false;
    const sending = outs;
    outs = [];
    upsertMemo({ caps: viewOf(ledger) });
    // One campaign's messages in order, each after the last arrived: signals sent at once may land
    // in any order, and a held campaign then showed an older hold (spent $0.18) after a newer one.
    const byCampaign = new Map<string, LedgerOut[]>();
    for (const out of sending) byCampaign.set(out.campaign, [...(byCampaign.get(out.campaign) ?? []), out]);
    await Promise.all(
      [...byCampaign.values()].map(async (messages) => {
        for (const out of messages) await send(out);
      }),
    );
    const info = workflowInfo();
    if ((info.continueAsNewSuggested || info.historyLength >= MAX_EVENTS) && outs.length === 0 && !changed) {
      await continueAsNew<typeof capsWorkflow>({ key: input.key, carried: ledger.state });
    }
  }
}
