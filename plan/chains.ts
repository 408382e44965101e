/**
 * Chains between steps (`from:`): the parent must exist, make images, and not lead back to the
 * step itself; the child's model must take an image. A derive step follows a model step of either
 * kind, and nothing follows it: its files are made on the worker, not by jobs. Steps are then
 * ordered parents first.
 */
import { MODEL_LABELS, MODELS } from '../api/catalogue/index.ts';
import type { Report } from './report.ts';
import { isDeriveStep, isModelStep, type Step } from './schema.ts';
import { didYouMean } from './suggest.ts';

/** Reports unknown `from`, cycles and chains into a model without image input; returns steps that may be expanded. */
export function checkChains(
  steps: readonly Step[],
  byId: ReadonlyMap<string, Step>,
  report: Report,
): Set<Step> {
  const ok = new Set<Step>();
  const imageModels = MODEL_LABELS.filter((label) => MODELS[label].imageFields.length > 0);
  steps.forEach((step, index) => {
    if (step.from === undefined) {
      ok.add(step);
      return;
    }
    const parent = byId.get(step.from);
    const path = ['steps', index, 'from'];
    if (!parent) {
      report(
        path,
        `from: "${step.from}" is not a step${didYouMean(step.from, byId.keys())}; steps: ${[...byId.keys()].join(', ')}`,
      );
    } else if (isDeriveStep(parent)) {
      report(
        path,
        isDeriveStep(step)
          ? `step "${parent.id}" is a derive step: derivatives of derivatives are not made yet; list the operations in one step, from: ${parent.from ?? '<its step>'}`
          : `step "${parent.id}" is a derive step, whose files are made on the worker, not by jobs a model can follow; follow its from: step${parent.from === undefined ? '' : ` "${parent.from}"`}`,
      );
    } else if (isDeriveStep(step)) {
      ok.add(step);
    } else if (isModelStep(step) && MODELS[step.model].imageFields.length === 0) {
      report(
        path,
        `${step.model} takes no image input, so step "${step.id}" cannot follow another step; models with an image input: ${imageModels.join(', ')}`,
      );
    } else if (isModelStep(parent) && MODELS[parent.model].kind !== 'image') {
      report(
        path,
        `step "${parent.id}" makes videos (${parent.model}); from: must name a step that makes images`,
      );
    } else {
      const cycle = cycleFrom(step, byId);
      if (cycle) report(path, `chain cycle: ${cycle.join(' → ')}; a step cannot (indirectly) follow itself`);
      else ok.add(step);
    }
  });
  return ok;
}

function cycleFrom(step: Step, byId: ReadonlyMap<string, Step>): string[] | null {
  const seen: string[] = [step.id];
  for (let current = byId.get(step.from ?? ''); current; current = byId.get(current.from ?? '')) {
    if (current === step) return [...seen, step.id];
    if (seen.includes(current.id)) return null;
    seen.push(current.id);
  }
  return null;
}

/** Indices of the steps whose whole chain is sound, each after its parent. */
export function topologicalOrder(
  steps: readonly Step[],
  byId: ReadonlyMap<string, Step>,
  ok: ReadonlySet<Step>,
): number[] {
  const order: number[] = [];
  const placed = new Set<Step>();
  const place = (step: Step): boolean => {
    if (placed.has(step)) return true;
    if (!ok.has(step)) return false;
    const parent = step.from === undefined ? undefined : byId.get(step.from);
    if (parent && !place(parent)) return false;
    placed.add(step);
    order.push(steps.indexOf(step));
    return true;
  };
  for (const step of steps) place(step);
  return order;
}
