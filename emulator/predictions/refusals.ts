/**
 * The service's content policy, as the emulator plays it (docs/service-assumptions.md, "Content
 * refusals"). Two kinds, as real services show them:
 *  - a prompt refused at create: 400 `CONTENT_REFUSED`, no prediction, nothing charged;
 *  - an output flagged after processing: the prediction ends `failed` with `OUTPUT_FLAGGED`, and
 *    stays charged in full (the model ran; real services bill the compute).
 * Each comes from a seeded knob (`refusePromptRate`, `flagOutputRate`) or, deterministically, from a
 * marker in the prompt, so tests and demos show them without chance:
 *  - `[refuse]` refuses on every model; `[refuse:I1,I4]` only on those models (a fallback passes);
 *  - `[flag]` flags every output; `[flag:N]` the first N outputs of that model and input (a new
 *    take, as after a retry, then passes).
 */
import type { ModelLabel } from '../../api/catalogue/index.ts';
import type { FaultInjector } from '../faults.ts';
import { ApiError } from '../http/errors.ts';

const REFUSE = /\[refuse(?::([A-Z0-9,\s]+))?\]/i;
const FLAG = /\[flag(?::(\d{1,3}))?\]/i;

function promptOf(input: Readonly<Record<string, unknown>>): string {
  return typeof input.prompt === 'string' ? input.prompt : '';
}

/** Throws the refusal of a prompt the content policy does not take on this model. */
export function checkPrompt(
  label: ModelLabel,
  input: Readonly<Record<string, unknown>>,
  faults: FaultInjector,
): void {
  const marker = REFUSE.exec(promptOf(input));
  const models = marker?.[1]?.split(',').map((model) => model.trim().toUpperCase());
  const byMarker = marker !== null && (models === undefined || models.includes(label));
  if (byMarker || faults.hit('refusePromptRate')) {
    throw new ApiError(
      'CONTENT_REFUSED',
      `the prompt was refused by the content policy of ${label}; nothing was created or charged`,
      { param: 'input.prompt' },
    );
  }
}

/** Decides at creation whether this prediction's output will be flagged (seeded, so runs replay). */
export class OutputFlags {
  /** Outputs flagged so far per fingerprint (model + input), for `[flag:N]`. In memory only. */
  private readonly flagged = new Map<string, number>();

  willFlag(fingerprint: string, input: Readonly<Record<string, unknown>>, faults: FaultInjector): boolean {
    const marker = FLAG.exec(promptOf(input));
    if (marker) {
      const limit = marker[1] === undefined ? Number.POSITIVE_INFINITY : Number(marker[1]);
      const soFar = this.flagged.get(fingerprint) ?? 0;
      if (soFar >= limit) return false;
      this.flagged.set(fingerprint, soFar + 1);
      return true;
    }
    return faults.hit('flagOutputRate');
  }
}

export const FLAGGED_OUTPUT = {
  code: 'OUTPUT_FLAGGED',
  message: 'the output was flagged by the content policy after processing; the prediction is charged',
} as const;
