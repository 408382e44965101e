/**
 * The JSON Schema editors use (`# yaml-language-server: $schema=./campaign.schema.json`), written
 * to specs/campaign.schema.json by `npm run schema` and printed by `mediaflow schema`. It is zod's
 * rendering of the spec schema (plan/schema.ts), plus each model's `input` rendered from the
 * catalogue's own zod schemas (api/catalogue), chosen by the step's `model` (if/then), so an
 * editor completes `aspect_ratio` for I1 and `duration` for V4.
 *
 * The per-model parts describe what a spec may write, which is looser than what the service takes:
 * a value may be a `{{name}}` template, a number stands for its decimal text (`duration: 5`), and
 * nothing is marked required, since `defaults` and a chain's `{{from.output}}` may fill it.
 */
import { z } from 'zod';
import { inputJsonSchema, MODEL_LABELS, type ModelLabel } from '../api/catalogue/index.ts';
import { CampaignSpec } from './schema.ts';

type JsonSchema = Record<string, unknown>;

const TEMPLATE: JsonSchema = {
  type: 'string',
  pattern: '\\{\\{',
  description: 'A {{name}} template, rendered per job.',
};

const Property = z.looseObject({ type: z.string().optional(), enum: z.array(z.string()).optional() });
const ModelInput = z.object({ properties: z.record(z.string(), Property) });

const inputRef = (label: ModelLabel) => ({ $ref: `#/definitions/Input${label}` });

export function campaignJsonSchema(): JsonSchema {
  const schema = z.toJSONSchema(CampaignSpec, { io: 'input', target: 'draft-7' });
  const definitions = objectSchema(schema.definitions);
  const defaults = objectSchema(schema.properties?.defaults);
  const step = objectSchema(objectSchema(schema.properties?.steps).items);
  for (const label of MODEL_LABELS) {
    definitions[`Input${label}`] = specInput(label);
    defaults.properties = { ...defaults.properties, [label]: inputRef(label) };
  }
  step.allOf = MODEL_LABELS.map((label) => ({
    if: { properties: { model: { const: label } }, required: ['model'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited.
    then: { properties: { input: inputRef(label) } },
  }));
  return schema;
}

/** A part of zod's rendering that is a schema object (draft 7 also allows booleans and tuples). */
function objectSchema(part: unknown): z.core.JSONSchema.JSONSchema {
  if (typeof part !== 'object' || part === null || Array.isArray(part))
    throw new Error('the spec schema no longer has the shape json-schema.ts extends');
  return part as z.core.JSONSchema.JSONSchema;
}

export function campaignJsonSchemaText(): string {
  return `${JSON.stringify(campaignJsonSchema(), null, 2)}\n`;
}

function specInput(label: ModelLabel): JsonSchema {
  const { properties } = ModelInput.parse(inputJsonSchema(label));
  return {
    type: 'object',
    description: `${label}'s parameters (\`mediaflow models ${label}\`). Strings may hold {{name}} templates.`,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [name, specValue(property)]),
    ),
    additionalProperties: false,
  };
}

function specValue(property: z.infer<typeof Property>): JsonSchema {
  if (property.enum) {
    const numbers = property.enum.filter((value) => /^\d+$/.test(value)).map(Number);
    return {
      anyOf: [
        { type: 'string', enum: property.enum },
        ...(numbers.length > 0 ? [{ type: 'number', enum: numbers }] : []),
        TEMPLATE,
      ],
    };
  }
  if (property.type === 'boolean') return { anyOf: [{ type: 'boolean' }, TEMPLATE] };
  return property;
}
