/**
 * `output.dir` stays under the spec's folder, as local image inputs do: a spec from elsewhere
 * cannot write into /etc or beside the spec's folder, unless the person running it allows that
 * folder (`--allow-output-root`).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planCampaign } from '../../plan/index.ts';
import { writeSpec } from './write-spec.ts';

const spec = (dir: string) => `version: 1
campaign: outputs
output: { dir: "${dir}" }
steps:
  - id: hero
    model: I1
    input: { prompt: "a lamp" }
`;

describe('output.dir', () => {
  it.each(['out', 'renders/spring', '.'])('%s, under the spec’s folder, is planned', async (dir) => {
    const file = writeSpec(spec(dir));
    const result = await planCampaign(file);
    expect(result.ok && result.plan.outputDir).toBe(path.resolve(path.dirname(file), dir));
  });

  it.each(['/etc', '../elsewhere', 'out/../../up'])(
    '%s is refused at its line, with the flag that allows it',
    async (dir) => {
      const file = writeSpec(spec(dir));
      const result = await planCampaign(file);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const resolved = path.resolve(path.dirname(file), dir);
      expect(result.problems.map((p) => [p.line, p.message])).toEqual([
        [
          3,
          `output.dir ${resolved} is outside the spec's folder ${path.dirname(file)}; put it under that folder, or allow it with --allow-output-root ${resolved}`,
        ],
      ]);
      const allowed = await planCampaign(file, { outputRoots: [path.dirname(resolved)] });
      expect(allowed.ok && allowed.plan.outputDir).toBe(resolved);
    },
  );

  it('an S3 location is not a folder of this machine', async () => {
    expect((await planCampaign(writeSpec(spec('s3://bucket-name/prefix')))).ok).toBe(true);
  });
});
