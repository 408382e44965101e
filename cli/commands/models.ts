/**
 * `mediaflow models [label] [--json]`: the catalogue as a user writes specs against it: each
 * model's kind and modes, its parameters (required, allowed values, the service's default) and its
 * prices, read from api/catalogue (the schemas that validate specs), so it cannot go stale.
 */
import type { Command } from 'commander';
import {
  describeModel,
  describeModels,
  MODEL_LABELS,
  type ModelDescription,
  ModelLabel,
  type ParameterInfo,
  type PriceRow,
} from '../../api/catalogue/index.ts';
import { formatDollars, formatUsd } from '../../api/money.ts';
import { UserError } from '../errors.ts';
import { jsonOutput } from '../json-output.ts';

export function register(program: Command): void {
  program
    .command('models [label]')
    .description("List the catalogue's models: modes, parameters, allowed values and prices")
    .option(
      '--json',
      'print { models: [{ label, kind, modes, parameters, prices }] } (money as decimal strings)',
    )
    .action((label: string | undefined, options: { json?: boolean }) => {
      const models = label === undefined ? describeModels() : [describeModel(labelOf(label))];
      process.stdout.write(options.json ? jsonOutput({ models: models.map(modelJson) }) : modelsText(models));
    });
}

function labelOf(text: string): ModelLabel {
  const parsed = ModelLabel.safeParse(text.toUpperCase());
  if (parsed.success) return parsed.data;
  throw new UserError(`no model "${text}"`, `the models are ${MODEL_LABELS.join(', ')}`);
}

export function modelsText(models: readonly ModelDescription[]): string {
  return `${models.map(modelText).join('\n\n')}\n`;
}

function modelText(model: ModelDescription): string {
  const single = model.prices?.length === 1 ? `, ${formatDollars(model.prices[0]!.usd)} a job` : '';
  const lines = [`${model.label}  ${model.kind}: ${model.modes.join(', ')}${single}`];
  const width = Math.max(...model.parameters.map((parameter) => parameter.name.length), 'price'.length);
  for (const parameter of model.parameters)
    lines.push(`    ${parameter.name.padEnd(width)}  ${parameterText(parameter)}`);
  if (model.prices === null)
    lines.push(`    ${'price'.padEnd(width)}  set by the service (mediaflow estimate asks it)`);
  else if (model.prices.length > 1) {
    const dollars = Math.max(...model.prices.map((row) => formatDollars(row.usd).length));
    model.prices.forEach((row, index) => {
      lines.push(`    ${(index === 0 ? 'price' : '').padEnd(width)}  ${priceText(row, dollars)}`);
    });
  }
  return lines.join('\n');
}

function parameterText(parameter: ParameterInfo): string {
  const parts: string[] = [];
  if (parameter.type === 'choice') parts.push(`one of ${parameter.values!.join(', ')}`);
  else if (parameter.type === 'image') parts.push('image (URL, data: URI, local file or {{from.output}})');
  else parts.push(parameter.type === 'boolean' ? 'true or false' : 'text');
  if (parameter.required) parts.push('required');
  if (parameter.maxLength !== undefined)
    parts.push(`at most ${parameter.maxLength.toLocaleString('en')} characters`);
  if (parameter.default !== undefined) {
    const outside = parameter.type === 'choice' && !parameter.values!.includes(String(parameter.default));
    // As the service publishes it (I1's match_input_image): what it uses when the field is left
    // out, never a value a spec can write, so it is said to hold only when the field is unset.
    parts.push(`default ${String(parameter.default)}${outside ? ' (if unset)' : ''}`);
  }
  return parts.join(', ');
}

function priceText(row: PriceRow, width: number): string {
  const when = Object.entries(row.when).map(([name, value]) => `${name} ${String(value)}`);
  return `${formatDollars(row.usd).padStart(width)}  ${when.join(', ')}`;
}

function modelJson(model: ModelDescription) {
  return {
    ...model,
    parameters: model.parameters.map(({ maxLength, ...parameter }) => ({
      ...parameter,
      ...(maxLength === undefined ? {} : { max_length: maxLength }),
    })),
    prices: model.prices?.map((row) => ({ when: row.when, usd: formatUsd(row.usd) })) ?? null,
  };
}
