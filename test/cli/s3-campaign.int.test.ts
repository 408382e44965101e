/**
 * A campaign end to end into S3 (the suite's versitygw), as a deployment with workers anywhere
 * runs it: the worker is its own process in an empty working directory, sharing nothing with
 * `run` but Temporal and the bucket. Every output lands in the bucket with its sha256, nothing is
 * written to a local folder, and a re-run pays nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { s3Client, s3Env, uniqueS3Url } from '../helpers/s3-store.ts';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';
import { BIN, cleanEnv, lines, mediaflow, tempDir, writeSpec } from './helpers.ts';

const SPEC = `
version: 1
campaign: CAMPAIGN
budget: { max_usd: 10 }
output: { dir: OUTPUT }
steps:
  - id: hero
    model: I1
    matrix: { product: [sneaker, watch] }
    input: { prompt: "Acme {{product}} on marble", aspect_ratio: "16:9" }
  - id: teaser
    model: V4
    from: hero
    matrix: { mode: [standard, pro] }
    input: { prompt: "Slow orbit around the {{product}}", start_image: "{{from.output}}", mode: "{{mode}}" }
`;

function startWorker(cwd: string, env: NodeJS.ProcessEnv, queue: string): ChildProcess {
  const worker = spawn(process.execPath, [BIN, 'worker', '--task-queue', queue], {
    cwd,
    env,
    stdio: 'ignore',
  });
  onTestFinished(() => {
    worker.kill('SIGKILL');
  });
  return worker;
}

async function body(key: string): Promise<Buffer> {
  const reply = await s3Client().send(new GetObjectCommand({ Bucket: inject('s3').bucket, Key: key }));
  return Buffer.from(await reply.Body!.transformToByteArray());
}

describe('a campaign into S3', () => {
  it('runs with a worker that shares nothing but Temporal and the bucket, a re-run pays nothing, the report lands in the bucket', async () => {
    const [specDir, workerDir] = [await tempDir(), await tempDir()];
    const campaign = `s3-${uniqueTaskQueue('c').slice(-8)}`;
    const output = uniqueS3Url('campaign');
    await writeSpec(specDir, SPEC.replace('CAMPAIGN', campaign).replace('OUTPUT', output));
    const emulator = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => emulator.close());
    const queue = uniqueTaskQueue('s3');
    const env = cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: emulator.baseUrl,
      MEDIAFLOW_API_KEY: emulator.apiKey,
      ...s3Env(),
    });
    startWorker(workerDir, env, queue);

    const first = await mediaflow(['run', 'spec.yaml', '--no-worker', '--task-queue', queue, '--json'], {
      cwd: specDir,
      env,
    });
    expect(first.stderr).not.toMatch(/refusing/);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ output_dir: output });
    expect(emulator.ledger().predictionsCreated).toBe(6);

    // Every output is an object whose bytes hash to what its record says; one record per job.
    const prefix = `${new URL(output).pathname.slice(1)}/`;
    const manifest = lines((await body(`${prefix}manifest.jsonl`)).toString()).map(
      (line) => JSON.parse(line) as { key: string; file: string; sha256: string; bytes: number },
    );
    expect(manifest).toHaveLength(6);
    expect(new Set(manifest.map((entry) => entry.key)).size).toBe(6);
    for (const entry of manifest) {
      const bytes = await body(prefix + entry.file);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.sha256);
      expect(bytes.length).toBe(entry.bytes);
    }
    const listed = await s3Client().send(
      new ListObjectsV2Command({ Bucket: inject('s3').bucket, Prefix: `${prefix}.mediaflow/records/` }),
    );
    expect(listed.KeyCount).toBe(6);

    // Nothing was written to a local folder: not beside the spec, not where the worker runs.
    expect(await readdir(specDir)).toEqual(['spec.yaml']);
    expect(await readdir(workerDir)).toEqual([]);

    const again = await mediaflow(['run', 'spec.yaml', '--no-worker', '--task-queue', queue], {
      cwd: specDir,
      env,
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/0 of 6 jobs to run, \$0\.00/);
    expect(emulator.ledger().predictionsCreated).toBe(6);

    const exported = await mediaflow(['export', campaign], { cwd: specDir, env });
    expect(exported.code).toBe(0);
    expect(
      lines(exported.stdout)
        .map((line) => (JSON.parse(line) as { key: string }).key)
        .sort(),
    ).toEqual(manifest.map((entry) => entry.key).sort());
    const unknown = await mediaflow(['export', `${campaign}-nope`], { cwd: specDir, env });
    expect(unknown.code).toBe(1);
    expect(lines(unknown.stderr)).toEqual([expect.stringMatching(/no campaign named ".*-nope"/)]);

    // The report goes into the bucket beside the outputs, served as a page, its links relative.
    const report = await mediaflow(['report', campaign], { cwd: specDir, env });
    expect(report.code).toBe(0);
    expect(lines(report.stdout)[0]).toBe(`wrote ${output}/report.html`);
    const page = await s3Client().send(
      new GetObjectCommand({ Bucket: inject('s3').bucket, Key: `${prefix}report.html` }),
    );
    expect(page.ContentType).toMatch(/^text\/html/);
    const html = await page.Body!.transformToString();
    const links = [...html.matchAll(/(?:src|poster)="([^"]+)"/g)].map((match) => match[1]!);
    expect(new Set(links)).toEqual(new Set(manifest.map((entry) => entry.file)));
    // Each link is an object under the prefix: the page opens from the bucket or a download of it.
    for (const link of links)
      expect((await body(prefix + decodeURIComponent(link))).length).toBeGreaterThan(0);
    // And no local folder named "s3:" (or anything else) appeared beside the spec.
    expect(await readdir(specDir)).toEqual(['spec.yaml']);
  }, 180_000);
});
