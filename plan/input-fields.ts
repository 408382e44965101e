/**
 * A step's input fields, checked before any job exists: defaults merged under the step's input
 * (`all`, the model's own entry, the step), parameters the model has, template names known here,
 * `{{from.output}}` only where an image goes, and a chained step given its parent's output.
 */
import { MODEL_LABELS, MODELS } from '../api/catalogue/index.ts';
import { isRowName } from './for-each.ts';
import type { Report } from './report.ts';
import type { CampaignSpec, ModelStep, Scalar } from './schema.ts';
import type { DataPath } from './source.ts';
import { didYouMean } from './suggest.ts';
import { compileTemplate, FROM_OUTPUT_NAME, type Template } from './templates.ts';

export interface InputField {
  readonly name: string;
  /** Where the value is written: the step's input or a `defaults` entry. */
  readonly path: DataPath;
  readonly value: Scalar;
  readonly template: Template | null;
  readonly isImage: boolean;
}

/** Merges defaults under the step's input (`all`, then the model's own entry, then the step). */
export function inputFields(
  step: ModelStep,
  index: number,
  spec: CampaignSpec,
  report: Report,
): InputField[] {
  const definition = MODELS[step.model];
  const parameters = Object.keys(definition.input.shape);
  const fields = new Map<string, InputField>();
  const add = (path: DataPath, name: string, value: Scalar) => {
    fields.set(name, {
      name,
      path: [...path, name],
      value,
      template: typeof value === 'string' && value.includes('{{') ? compileTemplate(value) : null,
      isImage: definition.imageFields.includes(name),
    });
  };
  for (const [name, value] of Object.entries(spec.defaults?.all ?? {})) {
    if (parameters.includes(name)) add(['defaults', 'all'], name, value);
  }
  for (const [name, value] of Object.entries(spec.defaults?.[step.model] ?? {}))
    add(['defaults', step.model], name, value);
  for (const [name, value] of Object.entries(step.input ?? {})) {
    if (parameters.includes(name)) add(['steps', index, 'input'], name, value);
    else {
      report(
        ['steps', index, 'input'],
        `${step.model} has no parameter "${name}"${didYouMean(name, parameters)}; its parameters are: ${parameters.join(', ')}`,
        { key: name },
      );
    }
  }
  return [...fields.values()];
}

export function checkDefaults(spec: CampaignSpec, report: Report): void {
  const everyParameter = new Set(MODEL_LABELS.flatMap((label) => Object.keys(MODELS[label].input.shape)));
  for (const name of Object.keys(spec.defaults?.all ?? {})) {
    if (!everyParameter.has(name)) {
      report(['defaults', 'all'], `no model has a parameter "${name}"${didYouMean(name, everyParameter)}`, {
        key: name,
      });
    }
  }
  for (const label of MODEL_LABELS) {
    const parameters = Object.keys(MODELS[label].input.shape);
    for (const name of Object.keys(spec.defaults?.[label] ?? {})) {
      if (!parameters.includes(name)) {
        report(
          ['defaults', label],
          `${label} has no parameter "${name}"${didYouMean(name, parameters)}; its parameters are: ${parameters.join(', ')}`,
          { key: name },
        );
      }
    }
  }
}

export function checkTemplates(
  step: ModelStep,
  fields: readonly InputField[],
  names: ReadonlySet<string>,
  report: Report,
): void {
  for (const field of fields) {
    if (!field.template) continue;
    checkTemplateNames(field.path, field.template, names, report);
    if (field.template.names.includes(FROM_OUTPUT_NAME)) checkFromOutput(step, field, report);
  }
}

/**
 * Reports what a template holds that is not a name known here (`{{row.<column>}}` is checked with
 * the step's table, plan/for-each.ts; `{{from.output}}` by the caller, which knows where it may go).
 */
export function checkTemplateNames(
  path: DataPath,
  template: Template,
  names: ReadonlySet<string>,
  report: Report,
): void {
  for (const text of template.invalid) {
    report(
      path,
      `${text} is not a variable name: templates hold a name only ({{name}}), no expressions or filters`,
      {
        text,
      },
    );
  }
  for (const name of template.names) {
    if (name === FROM_OUTPUT_NAME || names.has(name) || isRowName(name)) continue;
    const known = [...names].sort();
    report(path, `unknown variable {{${name}}}${didYouMean(name, known)}; known here: ${known.join(', ')}`, {
      text: `{{${name}`,
    });
  }
}

function checkFromOutput(step: ModelStep, field: InputField, report: Report): void {
  const images = MODELS[step.model].imageFields;
  if (step.from === undefined) {
    report(
      field.path,
      `{{from.output}} needs "from: <step>" on step "${step.id}" to name the step whose output it takes`,
    );
  } else if (!field.isImage) {
    report(
      field.path,
      `{{from.output}} can only fill an image field; ${step.model}'s image fields: ${images.join(', ') || 'none'}`,
    );
  } else if (!field.template?.whole) {
    report(
      field.path,
      `{{from.output}} must be the whole value of ${field.name} (it becomes the parent's output URL)`,
    );
  }
}

/** A chained step whose input does not mention the parent's output gets it in its first image field. */
export function withParentOutput(
  step: ModelStep,
  at: DataPath,
  fields: InputField[],
  report: Report,
): InputField[] {
  const takesOutput = (field: InputField) =>
    field.isImage && field.template?.names.includes(FROM_OUTPUT_NAME);
  if (step.from === undefined || fields.some(takesOutput)) return fields;
  const free = MODELS[step.model].imageFields.find((name) => !fields.some((field) => field.name === name));
  if (free === undefined) {
    if (MODELS[step.model].imageFields.length > 0) {
      report(
        [...at, 'from'],
        `step "${step.id}" follows "${step.from}" but its image fields are all set; put {{from.output}} in one of them`,
      );
    }
    return fields;
  }
  const value = `{{${FROM_OUTPUT_NAME}}}`;
  return [
    ...fields,
    { name: free, path: [...at, 'from'], value, template: compileTemplate(value), isImage: true },
  ];
}
