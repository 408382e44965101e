/**
 * The spend caps of one API key (docs/caps.md): a long-lived workflow per key fingerprint that
 * keeps the caps and the ledger of the current UTC day and month. A thin runtime over its engine
 * (engine/step.ts, which decides everything): each signal, the midnight timer and a send that
 * failed become an event; each effect becomes a signal to a campaign. Its own workflow, not the
 * rate governor's: a governor ends a minute after its last campaign, caps must outlive every
 * campaign. Its state is in its memo (`caps`), so `caps show` and preflight read it without a worker.
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
  capsAdoptSignal,
  capsAlertSignal,
  capsAskSignal,
  capsGrantSignal,
  capsLeaveSignal,
  capsSetSignal,
  capsSpentSignal,
  capsUsageSignal,
} from '../../contract/caps-messages.ts';
import { messageOf } from '../failure-of.ts';
import type { CapsEffect } from './engine/effects.ts';
import type { CapsEvent } from './engine/events.ts';
import { emptyLedger, type LedgerState } from './engine/state.ts';
import { step } from './engine/step.ts';
import { viewOf } from './engine/view.ts';

const MAX_EVENTS = 5_000;

export interface CapsInput {
  readonly key: string;
  readonly carried?: LedgerState;
}

export async function capsWorkflow(input: CapsInput): Promise<void> {
  let state = input.carried ?? emptyLedger(Date.now());
  let outs: CapsEffect[] = [];
  let changed = true; // a new run publishes its memo once
  const take = (event: CapsEvent) => {
    const next = step(state, event);
    state = next.state;
    outs.push(...next.effects);
    changed = true;
  };

  setHandler(capsSetSignal, (caps) => take({ kind: 'caps-set', caps, at: Date.now() }));
  setHandler(capsAskSignal, (ask) => take({ kind: 'ask', ask, at: Date.now() }));
  setHandler(capsSpentSignal, (report) => take({ kind: 'spent', report, at: Date.now() }));
  setHandler(capsLeaveSignal, (report) => take({ kind: 'leave', report, at: Date.now() }));
  setHandler(capsUsageSignal, (usage) => take({ kind: 'usage-read', usage, at: Date.now() }));
  setHandler(capsAdoptSignal, ({ from, view }) => take({ kind: 'adopt', from, view, at: Date.now() }));

  async function send(out: CapsEffect): Promise<void> {
    try {
      const handle = getExternalWorkflowHandle(out.campaign);
      if (out.kind === 'alert') await handle.signal(capsAlertSignal, out.alert);
      else await handle.signal(capsGrantSignal, out.grant);
    } catch (error) {
      log.info('campaign gone: its reservation goes back', {
        campaign: out.campaign,
        reason: messageOf(error),
      });
      take({ kind: 'gone', campaign: out.campaign, at: Date.now() });
    }
  }

  for (;;) {
    // The day's turn wakes the loop: a new day's (or month's) spend starts at 0.
    const woken = await condition(() => changed, Math.max(1, nextTurnMs(Date.now()) - Date.now()));
    if (!woken) take({ kind: 'turn', at: Date.now() });
    changed = false;
    const sending = outs;
    outs = [];
    upsertMemo({ caps: viewOf(state) });
    // One campaign's messages in order, each after the last arrived: signals sent at once may land
    // in any order, and a held campaign then showed an older hold after a newer one.
    const byCampaign = new Map<string, CapsEffect[]>();
    for (const out of sending) byCampaign.set(out.campaign, [...(byCampaign.get(out.campaign) ?? []), out]);
    await Promise.all(
      [...byCampaign.values()].map(async (messages) => {
        for (const out of messages) await send(out);
      }),
    );
    const info = workflowInfo();
    if ((info.continueAsNewSuggested || info.historyLength >= MAX_EVENTS) && outs.length === 0 && !changed) {
      await continueAsNew<typeof capsWorkflow>({ key: input.key, carried: state });
    }
  }
}
