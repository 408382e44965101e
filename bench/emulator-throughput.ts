/**
 * Emulator throughput: create + get pairs on loopback, against `mediaflow emulator` running in
 * its own process (so the load generator does not steal its CPU), with rate limits lifted and
 * instant predictions. The load loop is bounded in count and in time.
 *
 *   npx tsx bench/emulator-throughput.ts [--requests N] [--seconds S] [--concurrency C]
 *
 * Writes bench/results/emulator-throughput.json. Goal: ≥ 2,000 requests/s on 2 cores.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '60000' },
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '32' },
  },
});
const maxRequests = Number(values.requests);
const maxMs = Number(values.seconds) * 1000;
const concurrency = Number(values.concurrency);
const apiKey = 'bench-key';

const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    'cli/main.ts',
    'emulator',
    '--port',
    '0',
    '--time-scale',
    '0',
    '--no-jitter',
    '--api-key',
    apiKey,
    '--credits',
    '100000000',
    '--creates-per-minute',
    '100000000',
    '--requests-per-minute',
    '100000000',
    '--max-in-flight',
    '1000000',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const baseUrl = await new Promise<string>((resolve, reject) => {
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    const match = /MEDIAFLOW_API_URL=(\S+)/.exec(output);
    if (match) resolve(match[1]!);
  });
  child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
});
const url = new URL(baseUrl);
const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
const headers = {
  authorization: `Bearer ${apiKey}`,
  'content-type': 'application/json',
  accept: 'application/json',
};

let sent = 0;
let failures = 0;
const started = performance.now();
const deadline = started + maxMs;

async function request(
  method: 'GET' | 'POST',
  path: string,
  body?: string,
  extra: Record<string, string> = {},
) {
  const response = await pool.request({
    method,
    path: `${url.pathname}${path}`,
    headers: { ...headers, ...extra },
    body,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) failures++;
  return text;
}

async function worker(index: number): Promise<void> {
  for (let i = 0; sent + 2 <= maxRequests && performance.now() < deadline; i++) {
    sent += 2;
    const body = JSON.stringify({
      input: { prompt: `bench ${index}-${i}`, aspect_ratio: '1:1' },
      image_count: 1,
    });
    const created = JSON.parse(
      await request('POST', '/mf-i4/i4-base/predictions', body, { 'idempotency-key': `bench-${index}-${i}` }),
    ) as { id: number };
    await request('GET', `/predictions/${created.id}`);
  }
}

await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
const seconds = (performance.now() - started) / 1000;
await pool.close();
child.kill('SIGTERM');

const result = {
  benchmark: 'emulator-throughput',
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  command: `npx tsx bench/emulator-throughput.ts --requests ${maxRequests} --seconds ${maxMs / 1000} --concurrency ${concurrency}`,
  requests: sent,
  failures,
  seconds: Number(seconds.toFixed(2)),
  requestsPerSecond: Math.round(sent / seconds),
  goal: 2000,
};
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/emulator-throughput.json', `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
