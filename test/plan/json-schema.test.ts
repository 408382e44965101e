/**
 * specs/campaign.schema.json, as an editor uses it: current with the zod schemas, accepting every
 * example spec (templates and numbers included), and knowing each model's own parameters and
 * values, chosen by the step's `model`. Checked with Ajv, a JSON Schema validator like the ones
 * editors embed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { campaignJsonSchema, campaignJsonSchemaText } from '../../plan/json-schema.ts';

const specs = path.resolve(import.meta.dirname, '../../specs');
const validate = new Ajv({ allErrors: true, strict: false }).compile(campaignJsonSchema());

/** The instance paths Ajv complains about (one per offending value). */
function complaints(spec: unknown): string[] {
  if (validate(spec)) return [];
  const paths = (validate.errors ?? []).map((error) => error.instancePath);
  return [...new Set(paths)].filter((p) => !paths.some((other) => other !== p && other.startsWith(`${p}/`)));
}

const still = (model: string, input: Record<string, unknown>) => ({
  version: 1,
  campaign: 'x',
  steps: [{ id: 'still', model, input }],
});

/** A still and a derive step after it. */
const derive = (operations: unknown[]) => ({
  version: 1,
  campaign: 'x',
  steps: [
    { id: 'still', model: 'I2', input: { prompt: 'p' } },
    { id: 'made', from: 'still', derive: operations },
  ],
});

it('specs/campaign.schema.json matches the zod schema (run `npm run schema` after changing it)', () => {
  expect(readFileSync(path.join(specs, 'campaign.schema.json'), 'utf8')).toBe(campaignJsonSchemaText());
});

describe('the editor schema', () => {
  it.each(readdirSync(specs).filter((name) => name.endsWith('.yaml')))('accepts specs/%s', (name) => {
    // Merge keys (<<) as the loader reads them (plan/source.ts), and as YAML editors resolve them.
    expect(complaints(parse(readFileSync(path.join(specs, name), 'utf8'), { merge: true }))).toEqual([]);
  });

  it.each([
    ['I1 with an aspect ratio it has', still('I1', { prompt: 'p', aspect_ratio: '16:9' }), []],
    [
      'I1 with one it lacks',
      still('I1', { prompt: 'p', aspect_ratio: '4:3' }),
      ['/steps/0/input/aspect_ratio'],
    ],
    ['V4 with duration as a number', still('V4', { prompt: 'p', duration: 10 }), []],
    ['V4 with a duration it lacks', still('V4', { prompt: 'p', duration: '7' }), ['/steps/0/input/duration']],
    ['V4 with a templated mode', still('V4', { prompt: 'p', mode: '{{mode}}' }), []],
    ['I1 with a V4 parameter', still('I1', { prompt: 'p', duration: '5' }), ['/steps/0/input']],
    ['V1 with a boolean template', still('V1', { prompt: 'p', camera_fixed: '{{fixed}}' }), []],
    [
      'a derive step',
      derive([{ crop: { aspect_ratio: '1:1', focus: 'attention' } }, { preset: 'reels' }]),
      [],
    ],
    [
      'a derive option its operation lacks',
      derive([{ resize: { widht: 1080 } }]),
      ['/steps/1/derive/0/resize'],
    ],
    [
      'a derive option out of range',
      derive([{ text: { value: 'Hi', size: 0 } }]),
      ['/steps/1/derive/0/text/size'],
    ],
  ])('%s', (_what, spec, expected) => {
    expect(complaints(spec)).toEqual(expected);
  });

  it("knows each model's parameters and values for completion, in steps and defaults", () => {
    const schema = JSON.parse(campaignJsonSchemaText());
    const values = (label: string, name: string) =>
      schema.definitions[`Input${label}`].properties[name].anyOf[0].enum;
    expect(values('I1', 'aspect_ratio')).toEqual(['1:1', '16:9', '9:16']);
    expect(values('V4', 'duration')).toEqual(['5', '10']);
    expect(schema.properties.defaults.properties.V4).toEqual({ $ref: '#/definitions/InputV4' });
    expect(complaints({ ...still('I1', { prompt: 'p' }), defaults: { V4: { mode: 'ultra' } } })).toEqual([
      '/defaults/V4/mode',
    ]);
  });
});
