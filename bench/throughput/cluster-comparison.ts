/**
 * `cluster-10k` (issue 23): `throughput-10k` with two workers, first on the dev server and then
 * on the local cluster (bench/lib/cluster.ts: PostgreSQL and one process per Temporal service),
 * on fresh stacks one after the other. Goal: the cluster's wall ≤ 1.05 × the physical bound.
 * Beside it, the server's CPU per job on each: the Temporal processes' (and PostgreSQL's on the
 * cluster) CPU time during the campaign, read from /proc.
 */
import { startCluster } from '../lib/cluster.ts';
import { round, verdict } from '../lib/report.ts';
import { measureMediaflow } from './run-workload.ts';
import { imageSweep, tMin, WORKLOADS, type Workload, workloadSummary } from './workloads.ts';

export const CLUSTER_WALL_OVER_BOUND = 1.05;
const WORKERS = 2;

/**
 * throughput-10k's workload, or the same shape (R = 100/s, C = 200, L = 1 s) with fewer jobs to
 * check the benchmark's code: `jobs` rounded up to whole rows of 100.
 */
export function clusterWorkload(jobs = 10_000): Workload {
  const base = WORKLOADS['throughput-10k']!;
  const columns = Math.min(jobs, 100);
  const rows = Math.ceil(jobs / columns);
  const n = rows * columns;
  return {
    ...base,
    name: 'cluster-10k',
    description: `${n} I4 jobs, L = 1 s, C = 200, R = 100/s, two workers`,
    jobs: n,
    spec: imageSweep('bench-cluster', rows, columns, 200),
    boundSeconds: tMin(n, 1, 200, 100),
    boundFormula: `max(${n}/100, ${n}·1/200) + 1`,
    goals: { ...base.goals, wallOverBound: CLUSTER_WALL_OVER_BOUND },
  };
}

export async function measureClusterThroughput(jobs?: number) {
  const workload = clusterWorkload(jobs);
  const devServer = await measureMediaflow(workload, { workers: WORKERS });
  console.log('dev server', JSON.stringify({ wallS: devServer.wallS, server: devServer.server }));
  const cluster = await startCluster();
  let onCluster: Awaited<ReturnType<typeof measureMediaflow>>;
  try {
    onCluster = await measureMediaflow(workload, { workers: WORKERS, cluster });
  } finally {
    await cluster.stop();
  }
  console.log('cluster', JSON.stringify({ wallS: onCluster.wallS, server: onCluster.server }));
  const verdicts = [
    verdict('all jobs succeeded (cluster)', workload.jobs - onCluster.succeeded, 0, ' missing'),
    verdict('cluster wall / bound', onCluster.wallS / workload.boundSeconds, CLUSTER_WALL_OVER_BOUND),
  ];
  return {
    workload: workloadSummary(workload),
    devServer: { ...devServer, overBound: round(devServer.wallS / workload.boundSeconds, 3) },
    cluster: {
      ...onCluster,
      overBound: round(onCluster.wallS / workload.boundSeconds, 3),
      serverCpuOverDevServer: round(onCluster.server.cpuMsPerJob / devServer.server.cpuMsPerJob, 2),
    },
    verdicts,
  };
}
