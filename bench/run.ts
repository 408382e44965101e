/**
 * `npm run bench -- <name>`: the engine throughput benchmarks of issue 5.
 *
 *   throughput-2k | throughput-10k | chain-1k   mediaflow, then the baseline, on the workload
 *   baseline [workload…]                         the baseline alone (default: all three)
 *   s3-throughput-2k                             throughput-2k into a folder, then into S3
 *
 * Writes bench/results/<name>.json and prints a summary with the verdict per goal. Every run is
 * bounded in time (5 × its physical bound, see run-workload.ts).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { machine, round, type Verdict, verdict, writeResult } from './lib/report.ts';
import { measureBaseline, measureMediaflow } from './throughput/run-workload.ts';
import { measureS3Throughput } from './throughput/s3-comparison.ts';
import { WORKLOADS, type Workload } from './throughput/workloads.ts';

/** Other work on this 2-core machine skews every number: the load average says how much there was. */
const loadAtStart = os.loadavg().map((n) => round(n, 2));
const { positionals } = parseArgs({ allowPositionals: true });
const [name, ...rest] = positionals;

if (name === 's3-throughput-2k') {
  const measured = await measureS3Throughput();
  const file = writeResult(name, { benchmark: name, ...header(name), ...measured });
  for (const v of measured.verdicts)
    console.log(`${v.met ? 'met   ' : 'MISSED'} ${v.goal}: ${v.measured} (${v.target})`);
  console.log(`written ${file}`);
} else if (name === 'baseline') {
  const names = rest.length > 0 ? rest : Object.keys(WORKLOADS);
  const results: Record<string, unknown> = {};
  for (const workloadName of names) {
    const workload = workloadOf(workloadName);
    const baseline = await measureBaseline(workload);
    results[workloadName] = { ...baseline, overBound: round(baseline.wallS / workload.boundSeconds, 3) };
    console.log(workloadName, JSON.stringify(summary(baseline)));
  }
  writeResult('baseline', { benchmark: 'baseline', ...header('baseline'), results });
} else {
  const workload = workloadOf(name);
  const mediaflow = await measureMediaflow(workload);
  console.log('mediaflow', JSON.stringify(summary(mediaflow)));
  const baseline = await measureBaseline(workload);
  console.log('baseline', JSON.stringify(summary(baseline)));
  const verdicts = verdictsOf(workload, mediaflow, baseline);
  const file = writeResult(workload.name, {
    benchmark: workload.name,
    ...header(workload.name),
    workload: {
      description: workload.description,
      jobs: workload.jobs,
      emulator: workload.emulator,
      boundSeconds: workload.boundSeconds,
      boundFormula: workload.boundFormula,
    },
    mediaflow: {
      ...mediaflow,
      overBound: round(mediaflow.wallS / workload.boundSeconds, 3),
      overBaseline: round(mediaflow.wallS / baseline.wallS, 3),
    },
    baseline: { ...baseline, overBound: round(baseline.wallS / workload.boundSeconds, 3) },
    verdicts,
  });
  for (const v of verdicts)
    console.log(`${v.met ? 'met   ' : 'MISSED'} ${v.goal}: ${v.measured} (${v.target})`);
  console.log(`written ${file}`);
}

function workloadOf(workloadName: string | undefined): Workload {
  const workload = workloadName ? WORKLOADS[workloadName] : undefined;
  if (!workload) {
    console.error(
      `usage: npm run bench -- <${[...Object.keys(WORKLOADS), 'baseline', 's3-throughput-2k'].join(' | ')}>`,
    );
    process.exit(2);
  }
  return workload;
}

function header(benchmark: string) {
  return {
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { atStart: loadAtStart, atEnd: os.loadavg().map((n) => round(n, 2)) },
    command: `npm run bench -- ${benchmark}${rest.length > 0 ? ` ${rest.join(' ')}` : ''}`,
  };
}

type Measured = Awaited<ReturnType<typeof measureMediaflow>>;
type BaselineMeasured = Awaited<ReturnType<typeof measureBaseline>>;

function summary(m: Measured | BaselineMeasured) {
  return {
    wallS: m.wallS,
    succeeded: m.succeeded,
    failed: m.failed,
    requestsPerJob: m.requests.perJob,
    rateLimitedShare: m.requests.rateLimitedShare,
  };
}

function verdictsOf(workload: Workload, m: Measured, baseline: BaselineMeasured): Verdict[] {
  const { goals } = workload;
  const verdicts = [
    verdict('all jobs succeeded', workload.jobs - m.succeeded, 0, ' missing'),
    verdict('wall / bound', m.wallS / workload.boundSeconds, goals.wallOverBound),
    verdict('wall / baseline', m.wallS / baseline.wallS, goals.wallOverBaseline),
    verdict('API requests per job', m.requests.perJob, goals.requestsPerJob),
    verdict('share of 429s', m.requests.rateLimitedShare, goals.rateLimitedShare),
  ];
  if (goals.peakRssMib !== undefined)
    verdicts.push(verdict('worker peak RSS', m.worker.peakRssMib, goals.peakRssMib, ' MiB'));
  if (goals.maxEventsPerRun !== undefined)
    verdicts.push(verdict('largest workflow run', m.history.largestRun, goals.maxEventsPerRun, ' events'));
  return verdicts;
}
