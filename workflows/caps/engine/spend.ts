/**
 * Spend moves from reservations to the period's ledger (docs/caps.md, "Any order of notes"). A
 * note naming its execution carries that execution's totals so far: the ledger books only what
 * they add to what it already knew, so a late, repeated or reordered note books nothing twice, and
 * a leave that came before the execution's last report has already booked that report's spend.
 * A note without an execution (an older campaign) carries its spend since its last report.
 */
import type { Micros } from '../../../api/money.ts';
import type { ByModel, CapsReport } from '../../../contract/caps-messages.ts';
import { crossed } from './alerts.ts';
import type { Draft } from './draft.ts';
import type { CapsEffect } from './effects.ts';
import { runOf, sameAsker } from './grants.ts';

/** A report's spend booked (and what it gave back taken back); thresholds it crossed alert. */
export function booked(d: Draft, report: CapsReport): CapsEffect[] {
  if (report.run === undefined) return bookedSince(d, report.campaign, report.spent);
  const run = runOf(d, report.run, report.campaign);
  // A leave sent without totals (a run that failed) counts its spend since its last report.
  const total = report.total ?? sumOf(run.spent, report.spent);
  const models: string[] = [];
  for (const [model, micros] of Object.entries(total)) {
    const more = micros - (run.spent[model] ?? 0);
    if (!(more > 0)) continue;
    run.spent[model] = micros;
    book(d, model, more);
    models.push(model);
  }
  for (const [model, micros] of Object.entries(report.returned ?? {}))
    run.returned[model] = Math.max(run.returned[model] ?? 0, micros);
  return models.length === 0 ? [] : crossed(d, report.campaign, models);
}

/** The report ends its execution: nothing it asked for is held, what it did not spend goes back. */
export function left(d: Draft, report: CapsReport, at: number): void {
  if (report.run === undefined) {
    delete d.reserved[report.campaign];
    d.held = d.held.filter((h) => h.campaign !== report.campaign);
    return;
  }
  runOf(d, report.run, report.campaign).left = at;
  d.held = d.held.filter((h) => !sameAsker(h, report));
}

/** The campaign is closed: every execution of it has left, whatever it said. */
export function gone(d: Draft, campaign: string, at: number): void {
  delete d.reserved[campaign];
  for (const run of Object.values(d.runs)) if (run.campaign === campaign && run.left === null) run.left = at;
  d.held = d.held.filter((h) => h.campaign !== campaign);
}

/** How long a left execution is remembered: its late notes arrive within seconds. */
export const REMEMBER_LEFT_MS = 24 * 60 * 60 * 1_000;

export function forgetOld(d: Draft, at: number): void {
  for (const [id, run] of Object.entries(d.runs))
    if (run.left !== null && at - run.left > REMEMBER_LEFT_MS) delete d.runs[id];
}

function bookedSince(d: Draft, campaign: string, byModel: ByModel): CapsEffect[] {
  const mine = d.reserved[campaign] ?? {};
  for (const [model, micros] of Object.entries(byModel)) {
    if (!(micros > 0)) continue;
    book(d, model, micros);
    mine[model] = Math.max(0, (mine[model] ?? 0) - micros);
  }
  d.reserved[campaign] = mine;
  return crossed(d, campaign, Object.keys(byModel));
}

function book(d: Draft, model: string, micros: Micros): void {
  d.daySpent += micros;
  d.monthSpent += micros;
  d.modelSpent[model] = (d.modelSpent[model] ?? 0) + micros;
}

function sumOf(a: ByModel, b: ByModel): Record<string, Micros> {
  const out: Record<string, Micros> = { ...a };
  for (const [model, micros] of Object.entries(b)) out[model] = (out[model] ?? 0) + micros;
  return out;
}
