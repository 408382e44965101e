/**
 * The read model of a campaign's derive steps, its "channels": a card per file a derive step is
 * to make, one per job of its `from:` step, in that step's order and with the parent job's axes,
 * so a channel's sheet is laid out as its parent's (sheet.ts). What a card says comes from the
 * derivative's record (records/derivatives.ts): made, with its size, bytes and format; failed,
 * with why; no record (or one of an earlier take of its parent), not made yet. A made file of a
 * derive step with `review:` is awaiting review, approved or rejected by the decision on this
 * take of its parent (docs/review.md, "Derivatives"); the others are decided through their
 * parent. Pure; tested as a table
 * (test/review/channels.test.ts).
 */
import type { DecisionRecord } from '../contract/review.ts';
import { describeOperation } from '../derive/describe.ts';
import type { Plan, PlannedDerivative, PlannedDeriveStep } from '../plan/types.ts';
import type { DerivativeRecord } from '../records/derivatives.ts';
import { type MediaKind, mediaKind } from './media-kind.ts';
import type { Laid, Placed } from './sheet.ts';

/** `awaiting`, `approved` and `rejected`: a made file of a reviewed derive step, by its decision. */
export type DerivativeState = 'made' | 'failed' | 'unmade' | 'awaiting' | 'approved' | 'rejected';

export interface DerivativeCard {
  readonly key: string;
  readonly step: string;
  /** Its derive step has `review:`: a made file is decided on its own (awaiting, approved, rejected). */
  readonly reviewed: boolean;
  /** The parent job's key, and its output the file is (to be) made from; null until it is saved. */
  readonly parent: string;
  readonly parentFile: string | null;
  /** The parent job's matrix values: where the card sits on the sheet. */
  readonly axes: Readonly<Record<string, string>>;
  readonly state: DerivativeState;
  /** Relative to the output folder: the file made, or until then the one planned, without its extension. */
  readonly file: string;
  readonly kind: MediaKind;
  /** Of the file made; null until then. */
  readonly width: number | null;
  readonly height: number | null;
  readonly bytes: number | null;
  readonly durationS: number | null;
  /** The file's format once made; before, the one its `format` operation asks for, if any. */
  readonly format: string | null;
  /** Why it could not be made (`derive_failed: operation 3 (format): …`). */
  readonly reason: string | null;
  /** What is done to the parent's output, in words (`crop 1:1 (attention)`). */
  readonly operations: readonly string[];
  /** Changes whenever anything shown of the card does: the page redraws only changed cards. */
  readonly version: string;
}

export interface ChannelView extends Laid<DerivativeCard> {
  readonly id: string;
  readonly from: string;
  readonly output: PlannedDeriveStep['output'];
  /** Its files wait for decisions of their own (`review:` on the derive step). */
  readonly reviewed: boolean;
  readonly counts: Readonly<Record<DerivativeState, number>>;
}

/** A parent step's job as the channels see it: where it sits, and the output it saved. */
export interface ParentItem extends Placed {
  readonly key: string;
  readonly file: string | null;
  /** The take saved (0: the first output): a derivative's decision counts for this take only. */
  readonly take?: number;
}

/**
 * The record's file when it is the one the plan names (`<step>/<file>.<extension>`): a record is a
 * file anyone can edit, and the pages show (and serve) no other file for it.
 */
function plannedFile(derivative: PlannedDerivative, record: DerivativeRecord): string | null {
  if (record.state !== 'made') return null;
  const stem = `${derivative.step}/${derivative.file}.`;
  const extension = record.file.slice(stem.length);
  return record.file.startsWith(stem) && /^[A-Za-z0-9]+$/.test(extension) ? record.file : null;
}

function cardOf(
  derivative: PlannedDerivative,
  parent: ParentItem,
  record: DerivativeRecord | undefined,
): Omit<DerivativeCard, 'version' | 'reviewed'> {
  const planned = {
    key: derivative.key,
    step: derivative.step,
    parent: parent.key,
    parentFile: parent.file,
    axes: parent.axes,
    file: `${derivative.step}/${derivative.file}`,
    kind: derivative.output,
    width: null,
    height: null,
    bytes: null,
    durationS: null,
    format: derivative.operations.flatMap((op) => (op.op === 'format' ? [op.type] : [])).at(-1) ?? null,
    reason: null,
    operations: derivative.operations.map(describeOperation),
  };
  // A record of an earlier take of the parent stands for nothing now: its file is remade.
  if (!record || record.step !== derivative.step || record.parent.file !== parent.file) {
    return { ...planned, state: 'unmade' };
  }
  if (record.state === 'failed') {
    return { ...planned, state: 'failed', reason: record.message, operations: record.operations };
  }
  const file = plannedFile(derivative, record);
  if (file === null) return { ...planned, state: 'unmade' };
  return {
    ...planned,
    state: 'made',
    file,
    kind: mediaKind(file),
    width: record.width,
    height: record.height,
    bytes: record.bytes,
    durationS: record.duration_s,
    format: record.format,
    operations: record.operations,
  };
}

/** Whether the card's file stands (made, whatever its review says): what is shown and served. */
export function fileStands(card: Pick<DerivativeCard, 'state'>): boolean {
  return card.state !== 'failed' && card.state !== 'unmade';
}

/** A reviewed step's made file, by the decision on its parent's saved take; anything else as it is. */
function decided(
  state: DerivativeState,
  reviewed: boolean,
  decision: DecisionRecord | undefined,
  take: number,
): DerivativeState {
  if (!reviewed || state !== 'made') return state;
  if (decision?.take !== take) return 'awaiting';
  return decision.action === 'approve' ? 'approved' : decision.action === 'reject' ? 'rejected' : 'awaiting';
}

/**
 * One view per derive step of the plan, its cards in its `from:` step's order; `parents` are the
 * model steps' items by step id, `records` the derivative records by key, `decisions` the latest
 * decision by key (a derivative's among them).
 */
export function channelsOf(
  plan: Plan,
  parents: ReadonlyMap<string, Laid<ParentItem>>,
  records: ReadonlyMap<string, DerivativeRecord>,
  decisions: ReadonlyMap<string, DecisionRecord> = new Map(),
): ChannelView[] {
  const planned = new Map(plan.jobs.map((job) => [job.key, job.derivatives ?? []]));
  return (plan.deriveSteps ?? []).map((step): ChannelView => {
    const parent = parents.get(step.from);
    const reviewed = Boolean(step.review);
    const items = (parent?.items ?? []).flatMap((item) =>
      (planned.get(item.key) ?? [])
        .filter((derivative) => derivative.step === step.id)
        .map((derivative): DerivativeCard => {
          const made = cardOf(derivative, item, records.get(derivative.key));
          const state = decided(made.state, reviewed, decisions.get(derivative.key), item.take ?? 0);
          const card = { ...made, reviewed, state };
          return { ...card, version: [card.state, card.file, card.bytes, card.reason].join('|') };
        }),
    );
    const counts = { made: 0, failed: 0, unmade: 0, awaiting: 0, approved: 0, rejected: 0 };
    for (const item of items) counts[item.state] += 1;
    return {
      id: step.id,
      from: step.from,
      output: step.output,
      reviewed,
      axes: parent?.axes ?? [],
      items,
      counts,
    };
  });
}
