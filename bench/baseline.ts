/**
 * The hand-written baseline mediaflow is measured against (issue 5): what a careful engineer
 * writes in an afternoon. p-limit caps predictions in flight; each job creates its prediction,
 * polls it every 500 ms, downloads the output to disk; a 429 or 5xx is retried after the
 * service's Retry-After. Chained jobs start when their parent's file is on disk. No durability,
 * no idempotency keys, no budget: everything mediaflow adds is what it is measured against.
 *
 *   MEDIAFLOW_API_URL=… MEDIAFLOW_API_KEY=… npx tsx bench/baseline.ts <spec.yaml> [--timeout-s S]
 *
 * The spec is expanded by mediaflow's planner only to list the jobs (before the clock starts);
 * concurrency is the spec's. Prints one JSON line: BaselineResult.
 */
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { ModelPaths } from '../api/catalogue/index.ts';
import { FROM_OUTPUT, type PlannedJob, planCampaign } from '../plan/index.ts';

const POLL_MS = 500;
/** Failures in a row (5xx, network) of one request before the job is given up; 429s wait instead. */
const MAX_ATTEMPTS = 20;

export interface BaselineResult {
  readonly jobs: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly wallMs: number;
  /** Requests this script sent, by kind, and how many were answered 429. */
  readonly requests: { readonly create: number; readonly get: number; readonly download: number };
  readonly rateLimited: number;
  /** Milliseconds after the start at which each accepted create returned, in order. */
  readonly createdAtMs: readonly number[];
  readonly firstError: string | null;
}

interface Options {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly jobs: readonly PlannedJob[];
  readonly concurrency: number;
  readonly outputDir: string;
  readonly deadline: number;
}

class GiveUp extends Error {}

export async function runBaseline(options: Options): Promise<BaselineResult> {
  const { baseUrl, apiKey, jobs, concurrency, outputDir } = options;
  const dispatcher = new Agent({ connections: concurrency * 2, keepAliveTimeout: 10_000 });
  const paths = new ModelPaths();
  const headers = {
    authorization: `Bearer ${apiKey}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const requests = { create: 0, get: 0, download: 0 };
  const createdAtMs: number[] = [];
  let rateLimited = 0;
  let firstError: string | null = null;
  const started = performance.now();

  /**
   * One HTTP call with the retries a careful script has: a 429 means "wait", so it is retried after
   * Retry-After for as long as the deadline allows; a 5xx or a reset counts as a failure, retried
   * (Retry-After, else backoff) up to MAX_ATTEMPTS failures in a row.
   */
  async function call(kind: keyof typeof requests, method: 'GET' | 'POST', url: string, body?: string) {
    for (let failures = 0; ; ) {
      if (performance.now() > options.deadline) throw new GiveUp('deadline passed');
      requests[kind]++;
      try {
        const response = await request(url, {
          method,
          body,
          dispatcher,
          headers: kind === 'download' ? {} : headers,
        });
        if (response.statusCode < 400) return response;
        const text = await response.body.text();
        if (response.statusCode === 429) rateLimited++;
        else if (response.statusCode < 500 || ++failures >= MAX_ATTEMPTS)
          throw new GiveUp(`${method} ${url} answered ${response.statusCode}: ${text.slice(0, 200)}`);
        await sleep(retryAfterMs(response.headers) ?? 1_000);
      } catch (error) {
        if (error instanceof GiveUp || ++failures >= MAX_ATTEMPTS) throw error;
        await sleep(Math.min(5_000, 250 * 2 ** failures));
      }
    }
  }

  async function runJob(job: PlannedJob, parentUrl: string | undefined): Promise<string> {
    const input = Object.fromEntries(
      Object.entries(job.input).map(([k, v]) => [k, v === FROM_OUTPUT ? parentUrl : v]),
    );
    const { owner, model } = paths.pathOf(job.model);
    const created = await call(
      'create',
      'POST',
      `${baseUrl}/${owner}/${model}/predictions`,
      JSON.stringify({ input, image_count: 1 }),
    );
    const { id } = (await created.body.json()) as { id: number };
    createdAtMs.push(Math.round(performance.now() - started));
    for (;;) {
      await sleep(POLL_MS);
      const polled = await call('get', 'GET', `${baseUrl}/predictions/${id}`);
      const record = (await polled.body.json()) as {
        status: string;
        output_data?: { urls?: string[] };
        error?: { message?: string };
      };
      if (record.status === 'processing' || record.status === 'starting') continue;
      const url = record.output_data?.urls?.[0];
      if (record.status !== 'succeeded' || !url)
        throw new GiveUp(`prediction ${id} ended ${record.status}: ${record.error?.message ?? ''}`);
      const file = await call('download', 'GET', url);
      const target = join(outputDir, `${job.name}${url.slice(url.lastIndexOf('.'))}`);
      await pipeline(file.body, createWriteStream(target));
      return url;
    }
  }

  await mkdir(outputDir, { recursive: true });
  const limit = pLimit(concurrency);
  const children = new Map<string, PlannedJob[]>();
  for (const job of jobs) {
    if (job.parent) children.set(job.parent, [...(children.get(job.parent) ?? []), job]);
  }
  let succeeded = 0;
  let failed = 0;
  // A job takes a slot only for its own prediction; its children queue behind the jobs already
  // waiting, as they would with one p-limit shared by the whole script.
  const runTree = async (job: PlannedJob, parentUrl: string | undefined): Promise<void> => {
    let url: string;
    try {
      url = await limit(() => runJob(job, parentUrl));
      succeeded++;
    } catch (error) {
      failed++;
      firstError ??= (error as Error).message;
      return;
    }
    await Promise.all((children.get(job.key) ?? []).map((child) => runTree(child, url)));
  };
  await Promise.all(jobs.filter((job) => !job.parent).map((job) => runTree(job, undefined)));
  const wallMs = Math.round(performance.now() - started);
  await dispatcher.close();
  return { jobs: jobs.length, succeeded, failed, wallMs, requests, rateLimited, createdAtMs, firstError };
}

/** `retry-after-ms` when the service sends it (exact), else the standard `Retry-After` seconds. */
function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const ms = Number(headers['retry-after-ms']);
  if (Number.isFinite(ms) && ms > 0) return ms;
  const seconds = Number(headers['retry-after']);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'timeout-s': { type: 'string', default: '900' } },
  });
  const baseUrl = process.env.MEDIAFLOW_API_URL;
  const apiKey = process.env.MEDIAFLOW_API_KEY;
  if (!positionals[0] || !baseUrl || !apiKey)
    throw new Error('usage: MEDIAFLOW_API_URL=… MEDIAFLOW_API_KEY=… tsx bench/baseline.ts <spec.yaml>');
  const planned = await planCampaign(positionals[0]);
  if (!planned.ok) throw new Error(planned.problems.map((p) => p.message).join('\n'));
  const { plan } = planned;
  const result = await runBaseline({
    baseUrl,
    apiKey,
    jobs: plan.jobs,
    concurrency: plan.concurrency,
    outputDir: join(plan.outputDir, 'baseline'),
    deadline: performance.now() + Number(values['timeout-s']) * 1000,
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
