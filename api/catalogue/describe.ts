/**
 * What a user needs to write a model's `input`, read off the catalogue itself (the zod schemas
 * and price rules), so `mediaflow models`, the spec's JSON Schema and validation cannot disagree:
 * each parameter (required, its kind, its allowed values, the default the service applies) and
 * the prices, as a table over the parameters the price depends on.
 */
import { z } from 'zod';
import type { Micros } from '../money.ts';
import { MODEL_LABELS, MODELS, type ModelDefinition, type ModelLabel } from './models.ts';

export interface ParameterInfo {
  readonly name: string;
  readonly required: boolean;
  readonly type: 'text' | 'image' | 'choice' | 'boolean';
  /** The allowed values of a choice (strings on the wire). */
  readonly values?: readonly string[];
  readonly default?: string | boolean;
  readonly maxLength?: number;
}

export interface PriceRow {
  /** The values of the parameters the price depends on (empty: one price for every job). */
  readonly when: Readonly<Record<string, string | boolean>>;
  readonly usd: Micros;
}

export interface ModelDescription {
  readonly label: ModelLabel;
  readonly kind: ModelDefinition['kind'];
  readonly modes: ModelDefinition['modes'];
  readonly parameters: readonly ParameterInfo[];
  /** null when only the service knows the price (V5). */
  readonly prices: readonly PriceRow[] | null;
}

/** The JSON Schema of a model's input: zod's own rendering, the one the spec's schema embeds. */
export function inputJsonSchema(label: ModelLabel): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(MODELS[label].input, { io: 'input', target: 'draft-7' });
  return schema;
}

const Property = z.object({
  type: z.enum(['string', 'boolean']),
  enum: z.array(z.string()).optional(),
  maxLength: z.number().optional(),
});
const InputSchema = z.object({
  properties: z.record(z.string(), Property),
  required: z.array(z.string()).default([]),
});

export function describeModel(label: ModelLabel): ModelDescription {
  const definition = MODELS[label];
  const { properties, required } = InputSchema.parse(inputJsonSchema(label));
  const parameters = Object.entries(properties).map(([name, property]): ParameterInfo => {
    const type = definition.imageFields.includes(name)
      ? 'image'
      : property.type === 'boolean'
        ? 'boolean'
        : property.enum
          ? 'choice'
          : 'text';
    const fallback = definition.defaults[name];
    return {
      name,
      required: required.includes(name),
      type,
      ...(property.enum ? { values: property.enum } : {}),
      ...(fallback === undefined ? {} : { default: fallback }),
      ...(property.maxLength === undefined ? {} : { maxLength: property.maxLength }),
    };
  });
  return {
    label,
    kind: definition.kind,
    modes: definition.modes,
    parameters,
    prices: priceTable(definition, parameters),
  };
}

export function describeModels(): ModelDescription[] {
  return MODEL_LABELS.map(describeModel);
}

/**
 * Prices over every combination of the parameters that change the price (each tried against the
 * others' defaults), so V4 shows mode × duration and I1 a single price.
 */
function priceTable(definition: ModelDefinition, parameters: readonly ParameterInfo[]): PriceRow[] | null {
  const base: Record<string, string | boolean> = {};
  for (const parameter of parameters) {
    if (!parameter.required) continue;
    base[parameter.name] = parameter.values?.[0] ?? (parameter.type === 'boolean' ? false : 'x');
  }
  const basePrice = definition.price(base);
  if (basePrice === null) return null;
  const options = (parameter: ParameterInfo): readonly (string | boolean)[] =>
    parameter.type === 'boolean' ? [true, false] : (parameter.values ?? []);
  const priced = parameters.filter((parameter) =>
    options(parameter).some((value) => definition.price({ ...base, [parameter.name]: value }) !== basePrice),
  );
  let rows: Record<string, string | boolean>[] = [{}];
  for (const parameter of priced) {
    rows = rows.flatMap((row) => options(parameter).map((value) => ({ ...row, [parameter.name]: value })));
  }
  return rows.map((when) => ({ when, usd: definition.price({ ...base, ...when }) ?? 0 }));
}
