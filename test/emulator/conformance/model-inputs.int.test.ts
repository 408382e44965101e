/**
 * Every model of the catalogue against the emulator: every enum value is accepted, and a missing
 * required parameter, a bad enum value, an unknown parameter and a wrong type are each rejected
 * with a message that names the field (and the allowed values, when the list is closed).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODEL_LABELS, MODELS, type ModelLabel } from '../../../api/catalogue/index.ts';
import { freshKey, serviceError, useEmulator } from './harness.ts';

const contract = useEmulator();
const IMAGE = 'https://example.com/ref.png';

interface Field {
  readonly name: string;
  readonly required: boolean;
  readonly inner: z.ZodType;
}

function fieldsOf(label: ModelLabel): Field[] {
  return Object.entries(MODELS[label].input.shape as Record<string, z.ZodType>).map(([name, schema]) => {
    const required = !(schema instanceof z.ZodOptional);
    return {
      name,
      required,
      inner: schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema,
    };
  });
}

const enumValues = (field: Field): string[] =>
  field.inner instanceof z.ZodEnum ? (field.inner.options as string[]).map(String) : [];

/** The smallest valid input: the prompt, plus the first value of each required parameter. */
function minimal(label: ModelLabel): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of fieldsOf(label).filter((f) => f.required)) {
    input[field.name] = field.name === 'prompt' ? `a ${label} test` : (enumValues(field)[0] ?? IMAGE);
  }
  return input;
}

const create = (label: ModelLabel, input: Record<string, unknown>) =>
  contract.client.predictions.create(label, input, { idempotencyKey: freshKey(label) });

describe.each(MODEL_LABELS)('%s', (label) => {
  const fields = fieldsOf(label);

  it('accepts every enum value of every parameter, and booleans both ways', async () => {
    for (const field of fields) {
      const values: unknown[] = field.inner instanceof z.ZodBoolean ? [true, false] : enumValues(field);
      for (const value of values) {
        const prediction = await create(label, { ...minimal(label), [field.name]: value });
        expect(prediction.status, `${field.name}=${String(value)}`).toBe('processing');
      }
    }
  });

  it('rejects each missing required parameter, naming it', async () => {
    for (const field of fields.filter((f) => f.required)) {
      const { [field.name]: _dropped, ...input } = minimal(label);
      const error = await serviceError(() => create(label, input));
      expect(error).toMatchObject({ status: 400, code: 'MISSING_PARAMETER', retryable: false });
      expect(error.message).toContain(field.name);
      const allowed = enumValues(field);
      if (allowed.length > 0) expect(error.allowed).toEqual(allowed);
    }
  });

  it('rejects a value outside each enum, listing the allowed values', async () => {
    for (const field of fields.filter((f) => enumValues(f).length > 0)) {
      const error = await serviceError(() =>
        create(label, { ...minimal(label), [field.name]: 'not-a-value' }),
      );
      expect(error).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', allowed: enumValues(field) });
      expect(error.param).toContain(field.name);
      for (const value of enumValues(field)) expect(error.message).toContain(`"${value}"`);
    }
  });

  it('rejects an unknown parameter, listing the parameters it has', async () => {
    const error = await serviceError(() => create(label, { ...minimal(label), resolution_boost: '2x' }));
    expect(error).toMatchObject({ status: 400, code: 'UNKNOWN_PARAMETER' });
    expect(error.message).toContain('resolution_boost');
    expect(error.allowed).toEqual(fields.map((f) => f.name));
  });

  it('rejects a wrong type for every parameter, naming the field', async () => {
    for (const field of fields) {
      // Numbers would be turned into strings by the client (enum rule); a list is wrong for every field.
      const wrong = field.inner instanceof z.ZodBoolean ? 'yes' : ['a', 'list'];
      const error = await serviceError(() => create(label, { ...minimal(label), [field.name]: wrong }));
      expect(error, field.name).toMatchObject({ status: 400, retryable: false });
      expect(error.message).toContain(field.name);
      expect(error.param).toContain(field.name);
      // The message describes the value that was sent: it was never undefined.
      expect(error.message, field.name).not.toMatch(/\bundefined\b/);
    }
  });
});
