/**
 * service-spec.md part 2.1 rule 3: enumerated parameters travel as strings, numeric ones included.
 * A campaign author writing `duration: 5` in YAML means "5"; the client sends "5". Nothing else is
 * changed: validation is the server's job, and a wrong value must reach it to be reported.
 */
import { z } from 'zod';
import { MODELS, type ModelLabel } from '../catalogue/models.ts';

export function enumValuesAsStrings(
  model: ModelLabel,
  input: Record<string, unknown>,
): Record<string, unknown> {
  const shape = MODELS[model].input.shape as Record<string, z.ZodType>;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    out[name] = typeof value === 'number' && shape[name] && isEnum(shape[name]) ? String(value) : value;
  }
  return out;
}

function isEnum(schema: z.ZodType): boolean {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema;
  return inner instanceof z.ZodEnum;
}
