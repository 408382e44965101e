/**
 * `npm run bench -- <name>`: the engine throughput benchmarks (bench/throughput/workloads.ts).
 *
 *   throughput-2k | throughput-10k | chain-1k   mediaflow, then the baseline, on the workload
 *   throughput-100k                              mediaflow alone (no baseline goal at this size)
 *   baseline [workload…]                         the baseline alone (default: every workload with a baseline goal)
 *   shared-key [--jobs N --campaigns K --stagger-s S --weights 3,1,1,1 --priorities 0,0,0,1]
 *                                                      campaigns on one key (bench/shared-key.ts)
 *   s3-throughput-2k                             throughput-2k into a folder, then into S3
 *   cluster-10k [--jobs N]                       throughput-10k, two workers, dev server then local cluster
 *   rerun-2k | rerun-100k [--jobs N]             a finished campaign run again unchanged (bench/rerun.ts)
 *   derive-2k [--stills N]                       6,000 channel files from 2,000 stills: a plain sharp script, then mediaflow (bench/derive.ts)
 *   derive-reels-100 [--clips N]                 100 clips cut into captioned 9:16 reels: a plain ffmpeg loop, then mediaflow (bench/derive-reels.ts)
 *
 * Writes bench/results/<name>.json and prints a summary with the verdict per goal. Every run is
 * bounded in time (5 × its physical bound, see run-workload.ts).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { tracingRequested } from '../telemetry/settings.ts';
import { measureDerive } from './derive.ts';
import { measureDeriveReels } from './derive-reels.ts';
import { machine, round, type Verdict, verdict, writeResult } from './lib/report.ts';
import { measureRerun, RERUNS, resized } from './rerun.ts';
import { measureSharedKey } from './shared-key.ts';
import { measureClusterThroughput } from './throughput/cluster-comparison.ts';
import { measureBaseline, measureMediaflow } from './throughput/run-workload.ts';
import { measureS3Throughput } from './throughput/s3-comparison.ts';
import { WORKLOADS, type Workload, workloadSummary } from './throughput/workloads.ts';

/** Other work on this 2-core machine skews every number: the load average says how much there was. */
const loadAtStart = os.loadavg().map((n) => round(n, 2));
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    jobs: { type: 'string' },
    stills: { type: 'string' },
    clips: { type: 'string' },
    // Mediaflow alone, for a profile: the baseline's wall is not compared.
    'no-baseline': { type: 'boolean' },
    campaigns: { type: 'string' },
    'stagger-s': { type: 'string' },
    weights: { type: 'string' },
    priorities: { type: 'string' },
  },
});
const [name, ...rest] = positionals;

if (name === 'derive-2k') {
  const stills = values.stills === undefined ? 2_000 : Number(values.stills);
  const measured = await measureDerive(stills);
  const recorded = { benchmark: name, ...header(), ...measured };
  // A smaller run only checks the code: printed, never recorded as the benchmark's result.
  if (stills !== 2_000) console.log(JSON.stringify(recorded, null, 2));
  for (const v of measured.verdicts)
    console.log(`${v.met ? 'met   ' : 'MISSED'} ${v.goal}: ${v.measured} (${v.target})`);
  if (stills === 2_000) console.log(`written ${writeResult(name, recorded)}`);
} else if (name === 'derive-reels-100') {
  const clips = values.clips === undefined ? 100 : Number(values.clips);
  const measured = await measureDeriveReels(clips);
  const recorded = { benchmark: name, ...header(), ...measured };
  // A smaller run only checks the code: printed, never recorded as the benchmark's result.
  if (clips !== 100) console.log(JSON.stringify(recorded, null, 2));
  for (const v of measured.verdicts)
    console.log(`${v.met ? 'met   ' : 'MISSED'} ${v.goal}: ${v.measured} (${v.target})`);
  if (clips === 100) console.log(`written ${writeResult(name, recorded)}`);
} else if (name === 's3-throughput-2k') {
  const measured = await measureS3Throughput();
  const file = writeResult(name, { benchmark: name, ...header(), ...measured });
  for (const v of measured.verdicts)
    console.log(`${v.met ? 'met   ' : 'MISSED'} ${v.goal}: ${v.measured} (${v.target})`);
  console.log(`written ${file}`);
} else if (name === 'cluster-10k') {
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  const measured = await measureClusterThroughput(jobs);
  const recorded = { benchmark: name, ...header(), ...measured };
  // A smaller run only checks the code: printed, never recorded as the benchmark's result.
  const full = measured.workload.jobs === 10_000;
  if (!full) console.log(JSON.stringify(recorded, null, 2));
  for (const v of measured.verdicts)
    console.log(`${v.met ? 'met   ' : 'MISSED'} ${v.goal}: ${v.measured} (${v.target})`);
  if (full) console.log(`written ${writeResult(name, recorded)}`);
} else if (name !== undefined && name in RERUNS) {
  const workload = RERUNS[name]!;
  const jobs = values.jobs === undefined ? workload.jobs : Number(values.jobs);
  const measured = await measureRerun(jobs === workload.jobs ? workload : resized(workload, jobs));
  const recorded = { benchmark: name, ...header(), ...measured };
  // A smaller run only checks the code: printed, never recorded as the benchmark's result.
  const full = measured.workload.jobs === workload.jobs;
  if (!full) console.log(JSON.stringify(recorded, null, 2));
  for (const v of measured.verdicts)
    console.log(`${v.met ? 'met   ' : 'MISSED'} ${v.goal}: ${v.measured} (${v.target})`);
  if (full) console.log(`written ${writeResult(name, recorded)}`);
} else if (name === 'shared-key') {
  const sizes = { jobs: Number(values.jobs ?? 2_500), campaigns: Number(values.campaigns ?? 4) };
  const numbers = (list: string | undefined) => list?.split(',').map(Number);
  const weights = numbers(values.weights);
  const priorities = numbers(values.priorities);
  const result = await measureSharedKey({
    ...sizes,
    staggerS: Number(values['stagger-s'] ?? 5),
    ...(weights && { weights }),
    ...(priorities && { priorities }),
  });
  // The equal split, the weighted one and the priority case are kept as three results.
  const variant = ['shared-key', weights && 'weighted', priorities && 'priority'].filter(Boolean).join('-');
  const recorded = { benchmark: variant, ...header(), ...result };
  // A smaller run only checks the code: printed, never recorded as the benchmark's result.
  const full = sizes.jobs === 2_500 && sizes.campaigns === 4;
  if (!full) console.log(JSON.stringify(recorded, null, 2));
  for (const v of result.verdicts)
    console.log(`${v.met ? 'met   ' : 'MISSED'} ${v.goal}: ${v.measured} (${v.target})`);
  if (full) console.log(`written ${writeResult(variant, recorded)}`);
} else if (name === 'baseline') {
  const withBaseline = Object.values(WORKLOADS).filter((w) => w.goals.wallOverBaseline !== undefined);
  const names = rest.length > 0 ? rest : withBaseline.map((w) => w.name);
  const results: Record<string, unknown> = {};
  for (const workloadName of names) {
    const workload = workloadOf(workloadName);
    const baseline = await measureBaseline(workload);
    results[workloadName] = { ...baseline, overBound: round(baseline.wallS / workload.boundSeconds, 3) };
    console.log(workloadName, JSON.stringify(summary(baseline)));
  }
  writeResult('baseline', { benchmark: 'baseline', ...header(), results });
} else {
  const named = workloadOf(name);
  // `--jobs N` runs a smaller copy (to profile): printed and written under a name of its own.
  const workload = values.jobs && named.resize ? named.resize(Number(values.jobs)) : named;
  const resultName = workload.jobs === named.jobs ? workload.name : `${workload.name}-at-${workload.jobs}`;
  const mediaflow = await measureMediaflow(workload);
  console.log('mediaflow', JSON.stringify(summary(mediaflow)));
  const skip =
    (workload.goals.wallOverBaseline === undefined && !workload.withBaseline) || values['no-baseline'];
  const baseline = skip ? null : await measureBaseline(workload);
  if (baseline) console.log('baseline', JSON.stringify(summary(baseline)));
  // On 2 cores the worker and the Temporal server compete: which one binds (issue 22).
  console.log(
    `CPU during the campaign: worker ${mediaflow.worker.campaignCpuSeconds} s (${mediaflow.worker.cpuMsPerJob} ms/job),`,
    `Temporal server ${mediaflow.server.temporalCpuSeconds} s (${mediaflow.server.cpuMsPerJob} ms/job, ${mediaflow.server.cpuMsPerEvent} ms/event),`,
    `emulator ${mediaflow.beside.emulatorCpuSeconds} s; machine ${Math.round(mediaflow.beside.machineBusyShare * 100)} % busy`,
  );
  if (baseline)
    console.log(
      `CPU during the baseline: its process ${baseline.process.cpuSeconds} s, emulator ${baseline.beside.emulatorCpuSeconds} s;`,
      `machine ${Math.round(baseline.beside.machineBusyShare * 100)} % busy`,
    );
  const verdicts = verdictsOf(workload, mediaflow, baseline);
  const file = writeResult(resultName, {
    benchmark: resultName,
    ...header(),
    workload: workloadSummary(workload),
    mediaflow: {
      ...mediaflow,
      overBound: round(mediaflow.wallS / workload.boundSeconds, 3),
      overBaseline: baseline && round(mediaflow.wallS / baseline.wallS, 3),
      workerCpuMsPerJob: round((mediaflow.worker.cpuSeconds * 1000) / workload.jobs, 2),
    },
    baseline: baseline && { ...baseline, overBound: round(baseline.wallS / workload.boundSeconds, 3) },
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
      `usage: npm run bench -- <${[...Object.keys(WORKLOADS), ...Object.keys(RERUNS), 'baseline', 'shared-key', 's3-throughput-2k', 'cluster-10k'].join(' | ')}>`,
    );
    process.exit(2);
  }
  return workload;
}

function header() {
  return {
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { atStart: loadAtStart, atEnd: os.loadavg().map((n) => round(n, 2)) },
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
    // The workers inherit this environment: with an endpoint, they traced (bench/lib/report.ts).
    tracing: tracingRequested() ? (process.env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on') : null,
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

function verdictsOf(workload: Workload, m: Measured, baseline: BaselineMeasured | null): Verdict[] {
  const { goals } = workload;
  const verdicts = [
    verdict('all jobs succeeded', workload.jobs - m.succeeded, 0, ' missing'),
    verdict('finished (not abandoned at 5 × bound)', m.outcome === 'abandoned' ? 1 : 0, 0, ''),
    verdict('wall / bound', m.wallS / workload.boundSeconds, goals.wallOverBound),
    verdict('API requests per job', m.requests.perJob, goals.requestsPerJob),
    verdict('share of 429s', m.requests.rateLimitedShare, goals.rateLimitedShare),
  ];
  if (baseline && goals.wallOverBaseline !== undefined)
    verdicts.push(verdict('wall / baseline', m.wallS / baseline.wallS, goals.wallOverBaseline));
  if (goals.workerCpuMsPerJob !== undefined)
    verdicts.push(verdict('worker CPU per job', m.worker.cpuMsPerJob, goals.workerCpuMsPerJob, ' ms'));
  if (goals.eventsPerJob !== undefined)
    verdicts.push(verdict('history events per job', m.history.eventsPerJob, goals.eventsPerJob));
  if (goals.actionsPerJob !== undefined)
    verdicts.push(verdict('Temporal actions per job', m.history.actionsPerJob, goals.actionsPerJob));
  if (goals.peakRssMb !== undefined)
    verdicts.push(verdict('worker peak RSS', m.worker.peakRssMb, goals.peakRssMb, ' MB (10⁶ bytes)'));
  if (goals.maxEventsPerRun !== undefined)
    verdicts.push(verdict('largest workflow run', m.history.largestRun, goals.maxEventsPerRun, ' events'));
  return verdicts;
}
