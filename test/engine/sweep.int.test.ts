/**
 * A campaign removes, at its end, the temporary files killed attempts left of its own jobs
 * (workflows/sweep.ts), with nobody attached to it: before, only an attached `run` did, so a
 * detached campaign kept them. Another campaign's files in the same folder stay.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHAINED_SPEC, harness } from './harness.ts';

describe('the end of a campaign', () => {
  it("removes what killed attempts left of its jobs' files, and nothing of anyone else's", async () => {
    const h = await harness();
    const plan = await h.plan(CHAINED_SPEC);
    const job = plan.jobs[0]!;
    const folder = join(plan.outputDir, job.step);
    await mkdir(folder, { recursive: true });
    // A finish attempt SIGKILLed mid-download after its job's last attempt had finished.
    await writeFile(join(folder, `${job.name}.png.0a1b2c3d.part`), 'half a picture');
    // Another campaign writing into the same folder, still downloading.
    await writeFile(join(folder, 'not-in-this-plan.png.0a1b2c3d.part'), 'still downloading');

    expect((await h.run(plan)).outcome).toBe('completed');
    const left = (await readdir(plan.outputDir, { recursive: true })).filter((f) => f.endsWith('.part'));
    expect(left).toEqual([join(job.step, 'not-in-this-plan.png.0a1b2c3d.part')]);
  });
});
