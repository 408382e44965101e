/** Job keys decide what is regenerated and paid for again, so their stability is behaviour users notice. */
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { jobKey, LOCAL_FILE_PREFIX } from '../../plan/index.ts';
import { planOk } from './write-spec.ts';

const SPEC = (prompt: string) => `version: 1
campaign: demo
steps:
  - id: still
    model: I1
    matrix: { thing: [cup, pen] }
    input: { prompt: "${prompt} {{thing}}" }
  - id: clip
    model: V4
    from: still
    input: { prompt: "the {{thing}} spins" }
`;

function png(shade: number): Buffer {
  return Buffer.from(encode({ width: 1, height: 1, data: new Uint8Array(4).fill(shade), channels: 4 }));
}

describe('job keys', () => {
  it('are 32 hex characters and ignore the order of input keys', () => {
    const a = jobKey({ model: 'I1', input: { prompt: 'x', aspect_ratio: '1:1' }, variant: 1, parent: null });
    const b = jobKey({ model: 'I1', input: { aspect_ratio: '1:1', prompt: 'x' }, variant: 1, parent: null });
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(b).toBe(a);
    expect(
      jobKey({ model: 'I1', input: { prompt: 'x', aspect_ratio: '1:1' }, variant: 2, parent: null }),
    ).not.toBe(a);
  });

  it('stay the same for an unchanged spec, and change only for edited jobs and their descendants', async () => {
    const before = await planOk(SPEC('a photo of a'));
    const again = await planOk(SPEC('a photo of a'));
    expect(again.jobs.map((job) => job.key)).toEqual(before.jobs.map((job) => job.key));

    const edited = await planOk(SPEC('a drawing of a'));
    const changed = edited.jobs
      .filter((job, index) => job.key !== before.jobs[index]!.key)
      .map((job) => job.name);
    // The prompt of every still changed, so every still and every clip that follows one changes.
    expect(changed).toEqual(['still-cup', 'clip-cup', 'still-pen', 'clip-pen']);
  });

  it('follow a local picture by content: editing it changes the key, moving the project does not', async () => {
    const spec = `version: 1
campaign: demo
steps:
  - { id: clip, model: V4, input: { prompt: spin, start_image: ./product.png } }
`;
    const first = await planOk(spec, { 'product.png': png(10) });
    const moved = await planOk(spec, { 'product.png': png(10) });
    const edited = await planOk(spec, { 'product.png': png(200) });
    const job = first.jobs[0]!;
    expect(job.input.start_image).toBe(
      `${LOCAL_FILE_PREFIX}${first.specFile.replace(/campaign\.yaml$/, 'product.png')}`,
    );
    expect(moved.specFile).not.toBe(first.specFile);
    expect(moved.jobs[0]!.key).toBe(job.key);
    expect(edited.jobs[0]!.key).not.toBe(job.key);
  });
});
