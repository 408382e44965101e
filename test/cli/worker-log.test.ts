/**
 * The worker's log of `run` lives in the output folder and meets a full disk first. /dev/full is
 * a real device whose every write fails with ENOSPC: the log must drop the line and say so, never
 * throw (the runtime calls it inside activity interceptors, where a throw replaced the activity's
 * `disk_full` with a retryable error and the run never ended).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogEntry } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workerLog } from '../../cli/worker-log.ts';

const entry = (message: string): LogEntry => ({
  level: 'WARN',
  message,
  timestampNanos: 1_700_000_000_000_000_000n,
  meta: { taskToken: 'opaque', activityType: 'finishPredictions' },
});

describe('worker log', () => {
  it('on a full disk (ENOSPC) drops the line, counts it, says so once, and never throws', () => {
    const lost: string[] = [];
    const log = workerLog('/dev/full', { onLost: (code) => lost.push(code) });
    expect(() => log.write(entry('Activity failed'))).not.toThrow();
    expect(() => log.write(entry('Activity failed again'))).not.toThrow();
    expect(log.dropped).toBe(2);
    expect(lost).toEqual(['ENOSPC']);
    expect(() => log.close()).not.toThrow();
  });

  it('a folder it cannot create is a dropped line too', () => {
    const log = workerLog('/dev/null/logs/campaign.log');
    expect(() => log.write(entry('Activity failed'))).not.toThrow();
    expect(log.dropped).toBe(1);
  });

  it('writes one line per entry, without the task token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-log-'));
    const path = join(dir, 'logs', 'c.log');
    let first = 0;
    const log = workerLog(path, { onFirst: () => first++ });
    log.write(entry('one'));
    log.write(entry('two'));
    log.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/WARN one \{"activityType":"finishPredictions"\}$/);
    expect(lines.join('\n')).not.toContain('opaque');
    expect(first).toBe(1);
  });
});
