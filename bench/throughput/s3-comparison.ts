/**
 * `s3-throughput-2k` (issue 13): `throughput-2k` with its outputs, records and plan in S3
 * (versitygw on this machine), against the same workload into a folder, measured one after the
 * other on fresh stacks. Goal: the S3 run's wall ≤ 1.05 × the folder run's.
 */
import { round, verdict } from '../lib/report.ts';
import { measureMediaflow } from './run-workload.ts';
import { WORKLOADS } from './workloads.ts';

export const S3_OVER_FOLDER = 1.05;

export async function measureS3Throughput() {
  const workload = WORKLOADS['throughput-2k']!;
  const folder = await measureMediaflow(workload);
  console.log('folder', JSON.stringify({ wallS: folder.wallS, succeeded: folder.succeeded }));
  const s3 = await measureMediaflow(workload, { s3: true });
  console.log('s3', JSON.stringify({ wallS: s3.wallS, succeeded: s3.succeeded }));
  const verdicts = [
    verdict('all jobs succeeded (S3)', workload.jobs - s3.succeeded, 0, ' missing'),
    verdict('S3 wall / folder wall', s3.wallS / folder.wallS, S3_OVER_FOLDER),
  ];
  return {
    workload: {
      description: `${workload.description}, outputs in S3 (versitygw) vs a folder`,
      jobs: workload.jobs,
    },
    folder,
    s3: { ...s3, overFolder: round(s3.wallS / folder.wallS, 3) },
    verdicts,
  };
}
