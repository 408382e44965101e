/**
 * A spec edited and then edited back (issue 20): the jobs of the first version are recorded, and
 * their outputs were moved aside when the edit made new ones under the same names. Run again,
 * the first version pays nothing, and every listed file is there with the bytes its line names,
 * in S3 as in a folder.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, inject, it } from 'vitest';
import { s3Client, s3Env, uniqueS3Url } from '../helpers/s3-store.ts';
import { lines, specOnSuiteStack, writeSpec } from './helpers.ts';

describe('a spec edited back', () => {
  it.each(['folder', 's3'] as const)(
    'pays nothing again and lists files that match (%s)',
    async (where) => {
      const output = where === 's3' ? uniqueS3Url('edit-back') : 'out';
      const { emulator, dir, spec, campaign, run } = await specOnSuiteStack('back', {
        ...(where === 's3' ? s3Env() : {}),
      });
      const first = spec.replace('dir: out', `dir: ${output}`);
      const edited = first.replace('on oak', 'on slate');
      for (const [text, made] of [
        [first, 3],
        [edited, 6],
        [first, 6],
      ] as const) {
        await writeSpec(dir, text);
        const ran = await run('run', 'spec.yaml', '--worker');
        expect(ran.code, ran.stderr).toBe(0);
        expect(emulator.ledger().predictionsCreated).toBe(made);
      }
      const exported = await run('export', campaign);
      const listed = lines(exported.stdout).map(
        (line) => JSON.parse(line) as { file: string; sha256: string; prompt: string },
      );
      expect(listed.map((line) => line.prompt)).toEqual(Array(3).fill(expect.stringMatching(/on oak$/)));
      for (const line of listed) expect(sha256(await bytesOf(output, dir, line.file))).toBe(line.sha256);
    },
    120_000,
  );
});

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function bytesOf(output: string, dir: string, file: string): Promise<Buffer> {
  if (!output.startsWith('s3://')) return readFile(join(dir, output, file));
  const key = `${new URL(output).pathname.slice(1)}/${file}`;
  const reply = await s3Client().send(new GetObjectCommand({ Bucket: inject('s3').bucket, Key: key }));
  return Buffer.from(await reply.Body!.transformToByteArray());
}
