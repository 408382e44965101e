/**
 * The manifest a user gets is the truth of the current plan (issue 20): after an edit `export`
 * lists exactly the current plan's outputs and the edited jobs' earlier outputs stay on disk under
 * names of their own; a garbled manifest.jsonl hides nothing and `run` rewrites it from the
 * records; a damaged record is repaired from the service, paying nothing again.
 */
import { createHash } from 'node:crypto';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lines, specOnSuiteStack, writeSpec } from './helpers.ts';

interface Line {
  key: string;
  name: string;
  file: string;
  sha256: string;
  prompt: string;
  superseded: boolean;
}

const parsed = (text: string): Line[] => lines(text).map((line) => JSON.parse(line) as Line);
const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe('the manifest lists the current plan', () => {
  it('after an edit, export lists exactly the current plan; earlier outputs keep their bytes under their own names', async () => {
    const { dir, campaign, spec, run } = await specOnSuiteStack('truth');
    expect((await run('run', 'spec.yaml', '--worker')).code).toBe(0);
    // The prompt edited (same names, new keys) and one colour renamed.
    await writeSpec(dir, spec.replace('on oak', 'on slate').replace('red, green', 'crimson, green'));
    const again = await run('run', 'spec.yaml', '--worker');
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('earlier outputs of edited jobs kept as:');

    const exported = parsed((await run('export', campaign)).stdout);
    expect(exported.map((line) => line.name).sort()).toEqual(['still-blue', 'still-crimson', 'still-green']);
    expect(exported.every((line) => !line.superseded && line.prompt.endsWith('mug on slate'))).toBe(true);
    const all = parsed((await run('export', campaign, '--superseded')).stdout);
    expect(all).toHaveLength(6);
    expect(
      all
        .filter((line) => line.superseded)
        .map((line) => line.prompt)
        .sort(),
    ).toEqual(['A blue mug on oak', 'A green mug on oak', 'A red mug on oak']);
    // Every line, current or not, points at a file holding the bytes its sha256 names.
    for (const line of all) expect(await sha256(join(dir, 'out', line.file))).toBe(line.sha256);
    // The folder's manifest.jsonl is that view, rewritten by the run.
    const onDisk = parsed(await readFile(join(dir, 'out', 'manifest.jsonl'), 'utf8'));
    expect(
      onDisk
        .filter((line) => !line.superseded)
        .map((line) => line.key)
        .sort(),
    ).toEqual(exported.map((line) => line.key).sort());
  }, 180_000);

  it('a garbled manifest hides no job and is rewritten; a damaged record is repaired from the service, paying nothing', async () => {
    const { emulator, dir, campaign, run } = await specOnSuiteStack('truth');
    expect((await run('run', 'spec.yaml', '--worker')).code).toBe(0);
    const manifestFile = join(dir, 'out', 'manifest.jsonl');
    const [one, two, three] = lines(await readFile(manifestFile, 'utf8'));
    await writeFile(manifestFile, `${one}\n${two!.slice(0, 30)}\u0000garbled\n${three}\n`);
    await appendFile(manifestFile, three!.slice(0, 50));
    expect(parsed((await run('export', campaign)).stdout)).toHaveLength(3);

    // A record emptied (a disk that filled as it was written).
    const red = parsed((await run('export', campaign)).stdout).find((line) => line.name === 'still-red')!;
    await writeFile(join(dir, 'out', '.mediaflow', 'records', red.key), '');
    const created = emulator.ledger().predictionsCreated;
    const again = await run('run', 'spec.yaml', '--worker');
    expect(again.code).toBe(0);
    const warnings = lines(again.stderr).filter((line) => line.startsWith('warning:'));
    expect(warnings).toEqual([
      'warning: damaged records repaired from their predictions (nothing paid again): still-red',
    ]);
    expect(again.stderr).toContain('0 of 3 jobs to run, $0.00');
    expect(again.stdout).toContain('spent $0.00');
    expect(emulator.ledger().predictionsCreated).toBe(created);
    // The record is whole again, and manifest.jsonl is every job's line once more.
    const record = JSON.parse(await readFile(join(dir, 'out', '.mediaflow', 'records', red.key), 'utf8'));
    expect(record).toMatchObject({ key: red.key, sha256: red.sha256, file: red.file });
    const rewritten = parsed(await readFile(manifestFile, 'utf8'));
    expect(rewritten.map((line) => line.name).sort()).toEqual(['still-blue', 'still-green', 'still-red']);
  }, 180_000);
});
