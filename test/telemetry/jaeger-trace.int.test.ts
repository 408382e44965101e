/**
 * A campaign's trace, end to end, in a real Jaeger: `mediaflow run --worker` as a user types it,
 * with OTEL_EXPORTER_OTLP_ENDPOINT pointing at Jaeger (test/helpers/jaeger.ts), against an
 * emulator that answers a 429, refuses a prompt and cuts downloads short; the trace read back
 * through Jaeger's query API: its spans, their parents and links, their attributes, and no secret.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { BIN, cleanEnv, withOwnState } from '../cli/helpers.ts';
import { type JaegerSpan, type JaegerTrace, startJaeger } from '../helpers/jaeger.ts';
import { keyFormsIn } from '../helpers/key-forms.ts';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';

const exec = promisify(execFile);

/** Three stills, one refused; each still animated; notices signed with the hook's secret. */
const SPEC = `
version: 1
campaign: CAMPAIGN
budget: { max_usd: 10 }
concurrency: 8
output: { dir: out }
notify:
  targets:
    - url: HOOK_URL
      secret_env: MEDIAFLOW_HOOK_SECRET
      events: [campaign.completed, campaign.stopped]
steps:
  - id: hero
    model: I1
    on_refusal: skip
    matrix: { product: [sneaker, watch, "lamp [refuse]"] }
    input: { prompt: "Acme {{product}} on marble", aspect_ratio: "16:9" }
  - id: teaser
    model: V4
    from: hero
    input: { prompt: "Slow orbit around the {{product}}", start_image: "{{from.output}}", mode: standard }
`;

const tag = (span: JaegerSpan, key: string): unknown => span.tags.find((t) => t.key === key)?.value;
const parentOf = (span: JaegerSpan) => span.references.find((r) => r.refType === 'CHILD_OF')?.spanID;
const linksOf = (span: JaegerSpan) => span.references.filter((r) => r.refType === 'FOLLOWS_FROM');

/** Polls until Jaeger has `traceId` and its span count stood still for a moment. */
async function settledTrace(read: () => Promise<JaegerTrace | null>): Promise<JaegerTrace> {
  let last: JaegerTrace | null = null;
  for (let tries = 0; tries < 100; tries++) {
    const now = await read();
    if (now && last && now.spans.length === last.spans.length) return now;
    last = now;
    await sleep(200);
  }
  throw new Error(`the trace never settled: ${last?.spans.length ?? 0} spans`);
}

describe('a campaign traced into Jaeger', () => {
  it('shows the CLI, the workflow and every job, each call with its outcome, and no secret', async () => {
    const jaeger = await startJaeger();
    onTestFinished(() => jaeger.stop());
    const apiKey = `sk-trace-${randomBytes(12).toString('hex')}`;
    const hookSecret = `whsec_${randomBytes(24).toString('base64')}`;
    const emulator = await startEmulator({
      port: 0,
      timeScale: 0,
      apiKey,
      seed: 11,
      limits: { createsPerMinute: 6_000 },
      // Every other download arrives short (fetched again), and every link carries a query.
      faults: { truncateDownloadRate: 0.5, linkTtlMs: 600_000 },
    });
    onTestFinished(() => emulator.close());
    const notices: string[] = [];
    const hook = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        notices.push(String(request.headers['webhook-signature'] ?? ''));
        response.end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => hook.close(() => resolve())));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;

    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-trace-'));
    const campaign = uniqueTaskQueue('traced');
    await writeFile(join(dir, 'spec.yaml'), SPEC.replace('CAMPAIGN', campaign).replace('HOOK_URL', hookUrl));
    const service = `mediaflow-${campaign}`;
    const env = withOwnState(dir, {
      ...cleanEnv({
        TEMPORAL_ADDRESS: temporalAddress(),
        MEDIAFLOW_API_URL: emulator.baseUrl,
        MEDIAFLOW_API_KEY: apiKey,
        MEDIAFLOW_HOOK_SECRET: hookSecret,
        OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
        OTEL_SERVICE_NAME: service,
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      }),
    });

    const running = exec(process.execPath, [BIN, 'run', 'spec.yaml', '--worker'], {
      cwd: dir,
      env,
      timeout: 150_000,
    }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => error,
    );
    // Pacing to the limits it read, the engine meets no 429 on its own: cut the limit to one
    // create a second right after it read them, as a service under load may.
    while (!emulator.ledger().requests['GET /v1/account/rate-limits']?.['200']) await sleep(5);
    emulator.setLimits({ createsPerMinute: 60 });
    const result = await running;
    expect(result.stderr).toContain('jobs to run');
    expect(emulator.ledger().rateLimited).toBeGreaterThan(0);
    const traceId = /: trace ([0-9a-f]{32})/.exec(result.stderr)?.[1];
    expect(traceId, result.stderr).toBeDefined();

    // The campaign's trace: the command, its preflight and start, the workflow and its activities.
    const main = await settledTrace(() => jaeger.trace(traceId!));
    expect(main.processes[main.spans[0]!.processID]!.serviceName).toBe(service);
    const byName = (trace: JaegerTrace, name: string) => trace.spans.filter((s) => s.operationName === name);
    const one = (trace: JaegerTrace, name: string) => {
      const found = byName(trace, name);
      expect(
        found.map((s) => s.operationName),
        name,
      ).toEqual([name]);
      return found[0]!;
    };
    const root = one(main, 'mediaflow run');
    expect(root.references).toEqual([]);
    expect(tag(root, 'mediaflow.campaign')).toBe(campaign);
    expect(parentOf(one(main, 'preflight'))).toBe(root.spanID);
    const startOrAttach = one(main, 'start or attach');
    expect(parentOf(startOrAttach)).toBe(root.spanID);
    const startWorkflow = one(main, 'StartWorkflow:campaignWorkflow');
    expect(parentOf(startWorkflow)).toBe(startOrAttach.spanID);
    const runWorkflow = byName(main, 'RunWorkflow:campaignWorkflow');
    expect(runWorkflow.length).toBeGreaterThanOrEqual(1);
    expect(parentOf(runWorkflow[0]!)).toBe(startWorkflow.spanID);
    // Batches of jobs are scheduled without a span: the campaign's trace does not grow with its jobs.
    const scheduled = main.spans.filter((s) => s.operationName.startsWith('StartActivity:'));
    expect(scheduled.map((s) => s.operationName)).toContain('StartActivity:loadJobs');
    expect(scheduled.map((s) => s.operationName)).not.toContain('StartActivity:createPredictions');
    expect(scheduled.map((s) => s.operationName)).not.toContain('StartActivity:finishPredictions');
    const workflowSpans = new Set(runWorkflow.map((s) => s.spanID));
    for (const span of scheduled.filter((s) => s.operationName !== 'StartActivity:checkAccess')) {
      expect(workflowSpans.has(parentOf(span)!), span.operationName).toBe(true);
    }
    // A small activity runs in the campaign's trace, under the span that scheduled it.
    const loadJobs = byName(main, 'RunActivity:loadJobs');
    expect(loadJobs.length).toBeGreaterThan(0);
    expect(scheduled.map((s) => s.spanID)).toContain(parentOf(loadJobs[0]!));

    // Each batch of jobs is a trace of its own, linked to the campaign's run that scheduled it.
    const batches = await jaeger.search(service, { 'mediaflow.campaign': campaign });
    const batchTraces = batches.filter((t) => t.traceID !== traceId);
    expect(batchTraces.length).toBeGreaterThanOrEqual(2);
    const spans = batchTraces.flatMap((t) => t.spans);
    for (const trace of batchTraces) {
      const roots = trace.spans.filter((s) => parentOf(s) === undefined);
      expect(roots.map((s) => s.operationName)).toEqual([
        expect.stringMatching(/^RunActivity:(create|finish)Predictions$/),
      ]);
      const [link] = linksOf(roots[0]!);
      expect(link?.traceID).toBe(traceId);
      expect(workflowSpans.has(link!.spanID)).toBe(true);
    }

    // Every job's create, with the GenAI and mediaflow attributes; the refusal and the 429 by name.
    const creates = spans.filter((s) => s.operationName === 'job create');
    const createdKeys = new Set(creates.map((s) => tag(s, 'mediaflow.job.key')));
    expect(createdKeys.size).toBe(3 + 3);
    for (const span of creates) {
      expect(tag(span, 'gen_ai.operation.name')).toBe('generate_content');
      expect(['hero', 'teaser']).toContain(tag(span, 'mediaflow.step'));
      expect(tag(span, 'mediaflow.take')).toBe(0);
    }
    const outcomes = new Set(spans.map((s) => tag(s, 'mediaflow.outcome')));
    expect(outcomes).toContain('content_refused');
    expect(outcomes).toContain('rate_limited');
    const refused = creates.find((s) => tag(s, 'mediaflow.outcome') === 'content_refused')!;
    expect(tag(refused, 'mediaflow.job.name')).toMatch(/lamp/);
    expect(tag(refused, 'error')).toBe(true);
    // The calls under them: the service's model path and our label, the prediction's id.
    const single = spans.find(
      (s) => s.operationName === 'create prediction' && tag(s, 'mediaflow.outcome') === 'ok',
    );
    expect(single).toBeDefined();
    expect(tag(single!, 'gen_ai.request.model')).toMatch(/^mf-(i1|v4)\//);
    expect(['I1', 'V4']).toContain(tag(single!, 'mediaflow.model'));
    expect(tag(single!, 'gen_ai.response.id')).toEqual(expect.any(String));

    // Every job that ran: its finish, holding its wait and its download and record.
    const finishes = spans.filter((s) => s.operationName === 'job finish');
    expect(new Set(finishes.map((s) => tag(s, 'mediaflow.job.key'))).size).toBe(2 + 2);
    for (const finish of finishes.filter((s) => tag(s, 'mediaflow.outcome') === 'ok')) {
      const children = spans.filter((s) => parentOf(s) === finish.spanID).map((s) => s.operationName);
      expect(children).toEqual(expect.arrayContaining(['job wait', 'job download and record']));
      expect(tag(finish, 'mediaflow.cost_usd')).toEqual(expect.any(Number));
      expect(tag(finish, 'gen_ai.response.id')).toEqual(expect.any(String));
    }
    // The event streams waited on: each ends when the prediction does, not as a failure.
    const waits = spans.filter((s) => s.operationName === 'wait prediction');
    expect(waits.length).toBeGreaterThanOrEqual(4);
    for (const wait of waits) expect(tag(wait, 'mediaflow.outcome')).toBe('ok');
    // A download that arrived short was fetched again: two writes of one output, the first failed.
    const writes = spans.filter((s) => s.operationName === 'store.write');
    const byKey = new Map<string, JaegerSpan[]>();
    for (const write of writes) {
      const key = String(tag(write, 'mediaflow.store.key'));
      byKey.set(key, [...(byKey.get(key) ?? []), write]);
    }
    const retried = [...byKey.values()].filter((each) => each.length > 1);
    expect(retried.length).toBeGreaterThan(0);
    expect(retried.some((each) => each.some((s) => tag(s, 'error') === true))).toBe(true);

    // No secret anywhere: not the key in any form, not the hook's secret, no link's query, no prompt.
    expect(notices.length).toBeGreaterThan(0);
    const text = JSON.stringify([main, ...batchTraces]);
    expect(keyFormsIn(text, apiKey)).toEqual([]);
    expect(keyFormsIn(text, hookSecret)).toEqual([]);
    expect(text).not.toContain('expires=');
    expect(text).not.toContain('on marble');
  }, 240_000);
});
