/** How a spec becomes jobs: order, names, templates, defaults and chains, as the engine sees them. */
import { describe, expect, it } from 'vitest';
import { FROM_OUTPUT } from '../../plan/index.ts';
import { planOk, planText } from './write-spec.ts';

const HEAD = 'version: 1\ncampaign: demo\n';

describe('expansion', () => {
  it('orders jobs parents-first and depth-first, so a video can start right after its still', async () => {
    const plan = await planOk(`${HEAD}steps:
  - id: still
    model: I1
    matrix: { thing: [cup, pen] }
    input: { prompt: "a {{thing}}" }
  - id: clip
    model: V4
    from: still
    matrix: { mode: [standard, pro] }
    input: { prompt: "the {{thing}} spins", mode: "{{mode}}" }
  - id: remix
    model: I5
    from: still
    input: { prompt: "{{thing}} as a sketch" }
`);
    expect(plan.jobs.map((job) => job.name)).toEqual([
      'still-cup',
      'clip-cup-standard',
      'clip-cup-pro',
      'remix-cup',
      'still-pen',
      'clip-pen-standard',
      'clip-pen-pro',
      'remix-pen',
    ]);
    const [still, clip] = plan.jobs;
    expect(clip!.parent).toBe(still!.key);
    expect(clip!.vars).toEqual({ thing: 'cup', mode: 'standard' });
    // A chained step without {{from.output}} gets the parent's output in its first image field.
    expect(plan.jobs[3]!.input).toEqual({ prompt: 'cup as a sketch', image_input: FROM_OUTPUT });
    expect(plan.steps.map((step) => [step.id, step.from, step.jobCount])).toEqual([
      ['still', null, 2],
      ['clip', 'still', 4],
      ['remix', 'still', 2],
    ]);
  });

  it('merges defaults under inputs: all (where the model has the parameter), then the model, then the step', async () => {
    const plan = await planOk(`${HEAD}defaults:
  all: { prompt: "{{brand}} default", aspect_ratio: "9:16" }
  I2: { aspect_ratio: "4:5" }
vars: { brand: Acme }
steps:
  - { id: a, model: I1 }
  - { id: b, model: I2 }
  - { id: c, model: I3, input: { aspect_ratio: "1:1", prompt: own } }
  - { id: d, model: I5 }
`);
    expect(plan.jobs.map((job) => job.input)).toEqual([
      { prompt: 'Acme default', aspect_ratio: '9:16' },
      { prompt: 'Acme default', aspect_ratio: '4:5' },
      { prompt: 'own', aspect_ratio: '1:1' },
      { prompt: 'Acme default' },
    ]);
  });

  it('renders numbers as text and keeps booleans when a value is exactly one {{name}}', async () => {
    const plan = await planOk(`${HEAD}steps:
  - id: clip
    model: V1
    matrix: { seconds: [5, 10], fixed: [true] }
    input: { prompt: "{{seconds}} s", duration: "{{seconds}}", camera_fixed: "{{fixed}}", fps: 24 }
`);
    expect(plan.jobs[1]!.input).toEqual({ prompt: '10 s', duration: '10', camera_fixed: true, fps: '24' });
    // V1 at the default 1080p: $0.23 per second.
    expect(plan.jobs.map((job) => job.usd)).toEqual([1_150_000, 2_300_000]);
  });

  it('names variants, keeps names file-safe and unique, and numbers {{variant}} from 1', async () => {
    const plan = await planOk(`${HEAD}steps:
  - id: hero
    model: I4
    repeat: 2
    matrix: { look: ["Soft / Warm", "soft-warm", ".hidden"] }
    input: { prompt: "{{look}} take {{variant}}" }
`);
    const names = plan.jobs.map((job) => job.name);
    expect(new Set(names).size).toBe(6);
    for (const name of names) expect(name).toMatch(/^[a-z0-9][a-z0-9._-]*$/);
    expect(names.slice(0, 3)).toEqual([
      'hero-soft-warm-v1',
      'hero-soft-warm-v2',
      expect.stringMatching(/^hero-soft-warm-v1-[0-9a-f]{8}$/),
    ]);
    expect(names[4]).toBe('hero-hidden-v1');
    expect(plan.jobs[1]!.input.prompt).toBe('Soft / Warm take 2');
    expect(plan.jobs.map((job) => job.variant)).toEqual([1, 2, 1, 2, 1, 2]);
  });

  it('fills in the documented defaults of a plan', async () => {
    const plan = await planOk(`${HEAD}steps:\n  - { id: a, model: V5, input: { prompt: x } }\n`);
    expect(plan.concurrency).toBe(8);
    expect(plan.budget).toBeNull();
    expect(plan.outputDir.endsWith('/out/demo')).toBe(true);
    expect(plan.steps[0]).toMatchObject({ retries: 2, concurrency: null });
    // V5's price is not published: the service prices it.
    expect(plan.jobs[0]!.usd).toBeNull();
    expect(plan.unpricedJobs).toBe(1);
    expect(plan.totalUsd).toBe(0);
  });

  it('keeps an S3 output location as written (not a folder beside the spec), and refuses a bad one', async () => {
    const steps = 'steps:\n  - { id: a, model: I4, input: { prompt: x } }\n';
    const plan = await planOk(`${HEAD}output: { dir: "s3://media-team/campaigns/demo/" }\n${steps}`);
    expect(plan.outputDir).toBe('s3://media-team/campaigns/demo');
    const bad = await planText(`${HEAD}output: { dir: "s3://Not_A_Bucket/x" }\n${steps}`);
    expect(bad.ok ? '' : bad.problems.map((problem) => problem.message).join('\n')).toMatch(
      /an S3 location is s3:\/\/<bucket>\/<prefix>/,
    );
  });
});
