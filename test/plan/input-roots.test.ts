/**
 * Local image inputs are read from under the spec's folder only, unless the user allows another
 * folder (`--allow-input-root`): a spec cannot send any picture on the machine to the service,
 * neither by a `../` path, an absolute path, nor a link inside its folder.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem, planCampaign } from '../../plan/index.ts';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** base/project/campaign.yaml naming `image`, beside base/private/secret.png. */
function project(image: string) {
  const base = mkdtempSync(path.join(tmpdir(), 'mf-roots-'));
  const dir = path.join(base, 'project');
  const outside = path.join(base, 'private');
  mkdirSync(path.join(dir, 'assets'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.png'), PNG);
  writeFileSync(path.join(dir, 'assets', 'product.png'), PNG);
  const spec = path.join(dir, 'campaign.yaml');
  writeFileSync(
    spec,
    `version: 1\ncampaign: roots\nsteps:\n  - { id: clip, model: V4, input: { prompt: spin, start_image: "${image.replace('BASE', base)}" } }\n`,
  );
  return { base, dir, outside, spec };
}

async function refusal(spec: string, inputRoots?: string[]) {
  const result = await planCampaign(spec, { inputRoots });
  return result.ok ? 'planned' : result.problems.map((problem) => formatProblem(problem).replace(spec, ''));
}

describe('local image inputs', () => {
  it('are read from under the spec folder', async () => {
    const { spec } = project('./assets/product.png');
    expect(await refusal(spec)).toBe('planned');
  });

  it.each([
    ['a path out of the folder', '../private/secret.png'],
    ['an absolute path', 'BASE/private/secret.png'],
  ])('refuse %s in one line that says how to allow it', async (_what, image) => {
    const { spec, outside, dir } = project(image);
    expect(await refusal(spec)).toEqual([
      `:4:64: step "clip": image file "${image.replace('BASE', path.dirname(dir))}" is outside the spec's folder ${dir}; move it there, or allow its folder with --allow-input-root ${outside}`,
    ]);
  });

  it('refuse a link inside the folder that leads out of it', async () => {
    const { spec, dir, outside } = project('./innocent.png');
    symlinkSync(path.join(outside, 'secret.png'), path.join(dir, 'innocent.png'));
    expect(await refusal(spec)).toEqual([expect.stringContaining('"./innocent.png" is outside the spec')]);
  });

  it('are read from a folder the user allowed', async () => {
    const { spec, outside } = project('../private/secret.png');
    expect(await refusal(spec, [outside])).toBe('planned');
  });
});
