/**
 * `mediaflow models` and `mediaflow schema`: what a user needs to write a spec, from the catalogue
 * itself, without reading the source. No Temporal, no service.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cleanEnv, lines, mediaflow, tempDir } from './helpers.ts';

async function run(...args: string[]) {
  return mediaflow(args, { cwd: await tempDir(), env: cleanEnv() });
}

describe('mediaflow models', () => {
  it("shows one model's modes, parameters, allowed values, defaults and prices", async () => {
    const result = await run('models', 'v4');
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      'V4  video: text-to-video, image-to-video',
      '    prompt       text, required, at most 10,000 characters',
      '    start_image  image (URL, data: URI, local file or {{from.output}}), required',
      '    mode         one of standard, pro, default standard',
      '    duration     one of 5, 10, default 5',
      '    price        $0.25  mode standard, duration 5',
      '                 $0.50  mode standard, duration 10',
      '                 $0.65  mode pro, duration 5',
      '                 $1.30  mode pro, duration 10',
    ]);
  });

  it('lists every model within 80 columns, and as JSON with money as decimal strings', async () => {
    const text = await run('models');
    expect(text.stdout).toContain('I1  image: text-to-image, image-to-image, $0.12 a job');
    expect(text.stdout).toContain('    aspect_ratio  one of 1:1, 16:9, 9:16');
    expect(text.stdout).toContain('    price              set by the service (mediaflow estimate asks it)');
    expect(lines(text.stdout).filter((line) => line.length > 80)).toEqual([]);
    const json = JSON.parse((await run('models', '--json')).stdout);
    expect(json.models.map((model: { label: string }) => model.label)).toEqual([
      'V1',
      'V2',
      'V3',
      'V4',
      'V5',
      'V6',
      'I1',
      'I2',
      'I3',
      'I4',
      'I5',
    ]);
    const i1 = json.models.find((model: { label: string }) => model.label === 'I1');
    expect(i1.prices).toEqual([{ when: {}, usd: '0.12' }]);
    expect(i1.parameters[0]).toEqual({ name: 'prompt', required: true, type: 'text', max_length: 10000 });
  });

  it('names the models when given an unknown one, in one line', async () => {
    const result = await run('models', 'I9');
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      'mediaflow: no model "I9"; the models are V1, V2, V3, V4, V5, V6, I1, I2, I3, I4, I5',
    ]);
  });
});

describe('mediaflow schema', () => {
  it('prints specs/campaign.schema.json, for specs in any folder', async () => {
    const result = await run('schema');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      readFileSync(new URL('../../specs/campaign.schema.json', import.meta.url), 'utf8'),
    );
  });
});
