/**
 * Derive steps, checked once each before any job exists: the fields a step without a model has
 * no use for, its `from:`, each item's one operation (normalised by plan/derive-operations.ts),
 * the order of the list (clip work on clips only, one format and last, a still after `frame`),
 * pads against the frame and the names its texts read. A sound step is attached to its parent,
 * whose jobs then carry its derivatives (plan/derivatives.ts).
 */
import { MODELS } from '../api/catalogue/index.ts';
import { type Size, sizeAfter, sizeAfterOne } from '../derive/geometry.ts';
import type { Operation, OperationName } from '../derive/operations.ts';
import type { PreparedDerive } from './derivatives.ts';
import { Context, normalise } from './derive-operations.ts';
import { DERIVE_ITEM_NAMES, type DeriveItem } from './derive-spec.ts';
import { checkRowNames, type NamedTemplate } from './for-each.ts';
import { checkTemplateNames } from './input-fields.ts';
import type { LocalFiles } from './local-files.ts';
import type { PreparedStep } from './prepare.ts';
import type { Report } from './report.ts';
import { reviewRuleOf } from './review.ts';
import { type CampaignSpec, type DeriveStep, isDeriveStep } from './schema.ts';
import type { DataPath } from './source.ts';
import { didYouMean } from './suggest.ts';
import { compileTemplate, FROM_OUTPUT_NAME } from './templates.ts';
import type { DerivativeOutput } from './types.ts';

/** The versions of the tools derivatives are made with, part of their keys (sharp's, ffmpeg's). */
export interface DeriveTools {
  readonly image: string;
  readonly video: string;
}

export const UNVERSIONED: DeriveTools = { image: 'unversioned', video: 'unversioned' };

const VIDEO_ONLY: readonly OperationName[] = ['trim', 'fps', 'mute', 'audio', 'frame'];

/** A model step's fields, and why a derive step has none of them. */
const NOT_FOR_DERIVE: Readonly<Record<string, string>> = {
  model:
    'a derive step makes its files on the worker, with no model: remove model:, or derive: to make it a model step',
  input: 'a derive step has no model to give an input to: its operations say what it does',
  matrix:
    'a derive step makes one file per job of its from: step: no matrix (add another derive step for each variant)',
  repeat:
    'a derive step makes one file per job of its from: step: the same operations give the same file, so no repeat',
  for_each: "a derive step reads its from: step's row: no for_each",
  retries:
    'a derive step makes no prediction to retry: a derivative that cannot be made fails as derive_failed',
  concurrency: 'a derive step takes no service slot: no concurrency',
  on_refusal: 'a derive step sends nothing to the service, so nothing is refused: no on_refusal',
  timeout: 'a derive step makes no prediction: no timeout',
  output: "a derive step's files are named after its from: step's (under its own folder): no output.name",
};

/** Prepares every derive step whose from: step was prepared; each is pushed onto its parent's `derives`. */
export function prepareDerives(
  spec: CampaignSpec,
  steps: readonly PreparedStep[],
  files: LocalFiles,
  tools: DeriveTools,
  report: Report,
): PreparedDerive[] {
  const byId = new Map(steps.map((step) => [step.id, step]));
  return spec.steps.flatMap((step, index) => {
    if (!isDeriveStep(step)) return [];
    let found = 0;
    const counted: Report = (...problem) => {
      found++;
      report(...problem);
    };
    const at: DataPath = ['steps', index];
    for (const field of Object.keys(NOT_FOR_DERIVE)) {
      if (Object.hasOwn(step, field)) counted(at, NOT_FOR_DERIVE[field]!, { key: field });
    }
    if (typeof step.review === 'object' && step.review.edit_prompt !== undefined) {
      counted(
        [...at, 'review'],
        "a derivative has no prompt and is never regenerated (the same operations make the same bytes): no edit_prompt; edit the step's operations instead",
        { key: 'edit_prompt' },
      );
    }
    if (step.from === undefined) {
      counted(at, `derive step "${step.id}" needs from: <step>, the step whose outputs it makes files from`, {
        key: 'derive',
      });
    }
    // An unknown from:, or a derive step as from:, was reported with the chains (plan/chains.ts).
    const parent = byId.get(step.from ?? '');
    if (parent === undefined) return [];
    const derive = prepareDerive(step, index, parent, tools, new Context(spec, files, counted), counted);
    if (found > 0 || derive === null) return [];
    parent.derives.push(derive);
    return [derive];
  });
}

function prepareDerive(
  step: DeriveStep,
  index: number,
  parent: PreparedStep,
  tools: DeriveTools,
  context: Context,
  report: Report,
): PreparedDerive | null {
  const at: DataPath = ['steps', index, 'derive'];
  const operations: { operation: Operation; at: DataPath; text: NamedTemplate | null }[] = [];
  step.derive.forEach((item, position) => {
    const name = operationOf(item, [...at, position], report);
    if (name === null) return;
    const where: DataPath = [...at, position, name];
    const operation = normalise(name, item[name]!, where, context);
    if (operation === null) return;
    const text =
      operation.op === 'text'
        ? { path: [...where, 'value'], template: compileTemplate(operation.value) }
        : null;
    operations.push({ operation, at: [...at, position], text });
  });
  if (operations.length < step.derive.length) return null;
  const kind = MODELS[parent.model].kind;
  const output = checkOrder(parent, operations, report);
  checkPads(
    operations.map(({ operation }) => operation),
    kind,
    (position, reason) => report(operations[position]!.at, reason, { key: 'pad' }),
  );
  checkTexts(step, ['steps', index], parent, operations, report);
  const framed = operations.some(({ operation }) => operation.op === 'frame');
  return {
    id: step.id,
    from: parent.id,
    knownNames: parent.knownNames,
    output,
    operations: operations.map(({ operation, text }) => ({ operation, text })),
    tools: kind === 'image' ? tools.image : framed ? `${tools.video}+${tools.image}` : tools.video,
    review: reviewRuleOf(step.review),
  };
}

/** The one operation an item names; null when it names none, several or one that does not exist. */
function operationOf(
  item: DeriveItem,
  at: DataPath,
  report: Report,
): (typeof DERIVE_ITEM_NAMES)[number] | null {
  const keys = Object.keys(item);
  const known = DERIVE_ITEM_NAMES.filter((name) => keys.includes(name));
  for (const key of keys.filter((key) => !known.some((name) => name === key))) {
    report(
      at,
      `unknown operation "${key}"${didYouMean(key, DERIVE_ITEM_NAMES)}; operations: ${DERIVE_ITEM_NAMES.join(', ')}`,
      { key },
    );
  }
  if (keys.length === 0) {
    report(at, 'an empty item: each item of derive: is one operation, such as - resize: { width: 1080 }');
  } else if (keys.length > 1) {
    report(
      at,
      `one item holds ${keys.length} operations (${keys.join(', ')}): each item of derive: is one, applied in order; write them as ${keys.length} items`,
    );
  }
  return keys.length === 1 ? (known[0] ?? null) : null;
}

/** Clip work on clips only, still work on stills, one format and last, of the derivative's kind; returns that kind. */
function checkOrder(
  parent: PreparedStep,
  operations: readonly { operation: Operation; at: DataPath }[],
  report: Report,
): DerivativeOutput {
  let kind: DerivativeOutput = MODELS[parent.model].kind;
  let framedAt: number | null = null;
  let formatAt: number | null = null;
  const still = () =>
    framedAt === null
      ? `step "${parent.id}" makes stills (${parent.model})`
      : `after frame (operation ${framedAt + 1}) the derivative is a still`;
  operations.forEach(({ operation, at }, position) => {
    const name = operation.op;
    if (formatAt !== null) {
      const message =
        name === 'format'
          ? `a second format: a derivative is written once, as format (operation ${formatAt + 1}) says; keep one`
          : `format (operation ${formatAt + 1}) must come last: it says how the file is written`;
      report(at, message, { key: name });
    }
    if (VIDEO_ONLY.includes(name) && kind === 'image') {
      report(
        at,
        `${name} works on clips, and ${still()}${framedAt === null ? '' : `: put ${name} before frame`}`,
        { key: name },
      );
    }
    if (
      operation.op === 'crop' &&
      kind === 'video' &&
      (operation.focus === 'attention' || operation.focus === 'entropy')
    ) {
      report(
        [...at, 'crop', 'focus'],
        `focus: ${operation.focus} weighs a still's pixels (sharp's strategy): a clip's crop takes centre or { x, y }`,
      );
    }
    if (operation.op === 'frame') {
      kind = 'image';
      framedAt ??= position;
    }
    if (operation.op !== 'format') return;
    formatAt ??= position;
    const isClipFormat = operation.type === 'mp4' || operation.type === 'webm';
    if (isClipFormat && kind === 'image') {
      report(
        [...at, 'format', 'type'],
        `${operation.type} is a clip's format, and ${still()}: use jpeg, png, webp or avif`,
      );
    } else if (!isClipFormat && kind === 'video') {
      report(
        [...at, 'format', 'type'],
        `${operation.type} is a still's format, and step "${parent.id}" makes clips (${parent.model}): take a still first with - frame: { at: <seconds> }, or use mp4 or webm`,
      );
    }
    const settings = { quality: operation.quality, max_bytes: operation.maxBytes };
    for (const [option, value] of Object.entries(settings)) {
      if (isClipFormat && value !== null) {
        const message = `${option} applies to stills (jpeg, png, webp, avif), not to ${operation.type}`;
        report([...at, 'format'], message, { key: option });
      }
    }
  });
  return kind;
}

/**
 * A pad smaller than the frame cannot be made. The catalogue gives no pixel size for a model's
 * output (only its aspect ratios), so the frame is known only from the first operation that sets
 * it whatever the input (a resize to both sides that cuts or letterboxes, a pad): pads from there
 * on are checked, earlier ones are left to the worker.
 */
function checkPads(
  operations: readonly Operation[],
  kind: DerivativeOutput,
  report: (position: number, reason: string) => void,
): void {
  const fixing = operations.findIndex(
    (operation) =>
      operation.op === 'pad' ||
      (operation.op === 'resize' &&
        operation.width !== null &&
        operation.height !== null &&
        operation.fit !== 'contain'),
  );
  if (fixing < 0) return;
  const before = operations.slice(0, fixing);
  const grid = kind === 'video' && !before.some((operation) => operation.op === 'frame') ? 'even' : 'pixel';
  const anySize: Size = { width: 1, height: 1 };
  const walk = sizeAfter(
    sizeAfterOne(anySize, operations[fixing]!, grid),
    operations.slice(fixing + 1),
    grid,
  );
  if (!walk.ok) report(fixing + 1 + walk.index, walk.reason);
}

/** The names a text may read are its parent's (vars, matrix values, variant, the row's cells). */
function checkTexts(
  step: DeriveStep,
  at: DataPath,
  parent: PreparedStep,
  operations: readonly { text: NamedTemplate | null }[],
  report: Report,
): void {
  const texts = operations.flatMap(({ text }) => (text === null ? [] : [text]));
  for (const { path, template } of texts) {
    checkTemplateNames(path, template, parent.knownNames, report);
    if (template.names.includes(FROM_OUTPUT_NAME)) {
      const message =
        "{{from.output}} is the parent's file, not text: a text reads vars, matrix values and {{row.<column>}}";
      report(path, message, { text: '{{from.output' });
    }
  }
  const rows = parent.rows.kind === 'rows' ? { ...parent.rows, own: false } : parent.rows;
  checkRowNames(step, at, rows, texts, [], report);
}
