/**
 * Derivatives in the plan: one per job of the from: step, riding on that job (the engine's jobs
 * and steps stay the model's), texts rendered from the job's own values, and keys that remake only
 * what an edit touches. The plan, derivatives and all, reads back through the Plan schema.
 */
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { type Plan, type PlannedDerivative, planCampaign } from '../../plan/index.ts';
import { Plan as PlanSchema } from '../../plan/types.ts';
import { planOk, writeSpec } from './write-spec.ts';

const png = (shade: number) =>
  Buffer.from(encode({ width: 1, height: 1, data: new Uint8Array(4).fill(shade), channels: 4 }));

const TABLE = (second = 'Fresh') => `sku,name,headline\nA1,Cup,Hot\nB2,Pen,${second}\n`;

const SPEC = `version: 1
campaign: feed
data: { products: products.csv }
steps:
  - id: hero
    model: I1
    for_each: products
    matrix: { ratio: ["1:1", "16:9"] }
    input: { prompt: "a {{row.name}}", aspect_ratio: "{{ratio}}" }
    output: { name: "{{row.sku}}/{{ratio}}" }
  - id: square
    from: hero
    derive:
      - crop: { aspect_ratio: "1:1" }
      - text: { value: "{{row.headline}} ({{ratio}})" }
      - overlay: { image: logo.png }
  - id: clip
    model: V4
    from: hero
    input: { prompt: "the {{row.name}} spins" }
  - id: poster
    from: clip
    derive: [ { frame: { at: 1 } }, { format: { type: jpeg } } ]
`;

const files = (headline = 'Fresh', logo = png(10)) => ({ 'products.csv': TABLE(headline), 'logo.png': logo });

const derivativesOf = (plan: Plan, step: string): PlannedDerivative[] =>
  plan.jobs.flatMap((job) => job.derivatives ?? []).filter((derivative) => derivative.step === step);
const keys = (plan: Plan, step: string) => derivativesOf(plan, step).map((derivative) => derivative.key);

describe('derivatives in the plan', () => {
  it('ride on their parent jobs, one per job, leaving the model steps and jobs as they are', async () => {
    const plan = await planOk(SPEC, files());
    expect(plan.steps.map((step) => [step.id, step.jobCount])).toEqual([
      ['hero', 4],
      ['clip', 4],
    ]);
    expect(plan.jobs.map((job) => job.step)).toEqual([
      'hero',
      'clip',
      'hero',
      'clip',
      'hero',
      'clip',
      'hero',
      'clip',
    ]);
    expect(plan.deriveSteps).toEqual([
      { id: 'square', from: 'hero', output: 'image', derivativeCount: 4 },
      { id: 'poster', from: 'clip', output: 'image', derivativeCount: 4 },
    ]);
    expect(plan.totalUsd).toBe(4 * 120_000 + 4 * 250_000);
    const hero = plan.jobs[0]!;
    expect(hero.derivatives!.map((derivative) => [derivative.step, derivative.file])).toEqual([
      ['square', 'A1/1-1'],
    ]);
    // Without output.name, the parent's job name.
    expect(plan.jobs[1]!.derivatives!.map((derivative) => derivative.file)).toEqual([plan.jobs[1]!.name]);
    for (const derivative of plan.jobs.flatMap((job) => job.derivatives ?? []))
      expect(derivative.key).toMatch(/^[0-9a-f]{32}$/);
  });

  it("render each text from its parent job's row and matrix values", async () => {
    const plan = await planOk(SPEC, files());
    const texts = derivativesOf(plan, 'square').map(
      (derivative) => derivative.operations.find((operation) => operation.op === 'text')?.value,
    );
    expect(texts).toEqual(['Hot (1:1)', 'Hot (16:9)', 'Fresh (1:1)', 'Fresh (16:9)']);
  });

  it('leave out the text of a job whose optional cell is empty', async () => {
    const spec = SPEC.replace(
      'data: { products: products.csv }',
      'data: { products: { file: products.csv, optional: [headline] } }',
    );
    const plan = await planOk(spec, files(''));
    const texts = derivativesOf(plan, 'square').map((derivative) =>
      derivative.operations
        .filter((operation) => operation.op === 'text')
        .map((operation) => operation.value),
    );
    expect(texts).toEqual([['Hot (1:1)'], ['Hot (16:9)'], [' (1:1)'], [' (16:9)']]);
    const alone = await planOk(spec.replace(' ({{ratio}})', ''), files(''));
    expect(
      derivativesOf(alone, 'square').map((derivative) =>
        derivative.operations.map((operation) => operation.op),
      ),
    ).toEqual([
      ['crop', 'text', 'overlay'],
      ['crop', 'text', 'overlay'],
      ['crop', 'overlay'],
      ['crop', 'overlay'],
    ]);
  });

  it("change only the edited row's derivatives when a headline no prompt reads is edited", async () => {
    const before = await planOk(SPEC, files('Fresh'));
    const after = await planOk(SPEC, files('New!'));
    expect(after.jobs.map((job) => job.key)).toEqual(before.jobs.map((job) => job.key));
    const changed = keys(after, 'square').map((key, index) => key !== keys(before, 'square')[index]);
    expect(changed).toEqual([false, false, true, true]);
    expect(keys(after, 'poster')).toEqual(keys(before, 'poster'));
  });

  it("follow an asset's bytes, not its path", async () => {
    const first = await planOk(SPEC, files());
    const moved = await planOk(SPEC, files());
    const edited = await planOk(SPEC, files('Fresh', png(200)));
    expect(moved.specFile).not.toBe(first.specFile);
    expect(keys(moved, 'square')).toEqual(keys(first, 'square'));
    expect(keys(edited, 'square').some((key) => keys(first, 'square').includes(key))).toBe(false);
  });

  it("follow the tools' versions: a new ffmpeg remakes what comes from clips, a new sharp every still's", async () => {
    const file = writeSpec(SPEC, files());
    const plan = async (image: string, video: string) => {
      const result = await planCampaign(file, { deriveTools: { image, video } });
      if (!result.ok) throw new Error(result.problems.map((problem) => problem.message).join('\n'));
      return result.plan;
    };
    const base = await plan('sharp 0.34.1', 'ffmpeg 7.1');
    const newFfmpeg = await plan('sharp 0.34.1', 'ffmpeg 7.2');
    const newSharp = await plan('sharp 0.35.0', 'ffmpeg 7.1');
    expect(keys(newFfmpeg, 'square')).toEqual(keys(base, 'square'));
    expect(keys(newFfmpeg, 'poster').some((key) => keys(base, 'poster').includes(key))).toBe(false);
    // The poster's still is made after its frame, so sharp's version counts for it too.
    expect(keys(newSharp, 'poster').some((key) => keys(base, 'poster').includes(key))).toBe(false);
    // Without versions, as a caller that passes none.
    expect(keys(await plan('unversioned', 'unversioned'), 'poster')).toEqual(
      keys(await planOk(SPEC, files()), 'poster'),
    );
  });

  it('read back through the Plan schema, and plans without them still parse', async () => {
    const plan = await planOk(SPEC, files());
    const read = PlanSchema.parse(JSON.parse(JSON.stringify(plan)));
    expect(read).toEqual(plan);
    const { deriveSteps: _, ...older } = plan;
    const olderJobs = older.jobs.map(({ derivatives: _d, ...job }) => job);
    expect(PlanSchema.parse({ ...older, jobs: olderJobs }).deriveSteps).toBeUndefined();
  });

  it('refuse a stored derivative whose operation the worker could not run', async () => {
    const plan = await planOk(SPEC, files());
    const stored = JSON.parse(JSON.stringify(plan));
    stored.jobs[0].derivatives[0].operations[0] = { op: 'crop', aspectRatio: [1, 1], focus: 'middle' };
    expect(PlanSchema.safeParse(stored).success).toBe(false);
  });
});
