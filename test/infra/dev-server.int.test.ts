import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startDevServer } from '../../worker/dev-server.ts';
import { groupAlive, portFree } from '../../worker/process-group.ts';
import { temporalAddress, temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';

const dir = mkdtempSync(join(tmpdir(), 'mediaflow-dev-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function waitUntil(condition: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (await condition()) return true;
    await sleep(100);
  }
  return false;
}

describe('the dev server', () => {
  it('the suite server from globalSetup answers', async () => {
    const client = await temporalClient();
    const { namespaceInfo } = await client.workflowService.describeNamespace({ namespace: 'default' });
    expect(namespaceInfo?.name).toBe('default');
    expect(temporalAddress()).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('keeps a started workflow across restart() with the same db file, then stops without a trace', async () => {
    const server = await startDevServer({
      dbFile: join(dir, 'restart.db'),
      namespace: 'mediaflow-test',
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 100 },
    });
    const before = server.address;
    const client = await temporalClient(server.address);
    // No worker is needed: a started workflow waits in the db for one.
    const started = await client.workflow.start('neverPolled', {
      taskQueue: uniqueTaskQueue(),
      workflowId: 'survives-restart',
      args: [],
    });

    await server.restart();
    expect(server.address).toBe(before);
    // The same client reconnects: workers and CLIs ride out a server restart.
    const handle = client.workflow.getHandle('survives-restart');
    const description = await handle.describe();
    expect(description.runId).toBe(started.firstExecutionRunId);
    expect(description.status.name).toBe('RUNNING');

    const pgid = server.pgid()!;
    await server.stop();
    expect(groupAlive(pgid)).toBe(false);
    expect(await portFree(Number(before.split(':')[1]))).toBe(true);
  });

  it('does not outlive a parent that is killed with SIGKILL', async () => {
    const script = `
      import { startDevServer } from ${JSON.stringify(join(process.cwd(), 'worker/dev-server.ts'))};
      const server = await startDevServer({});
      console.log(server.pgid());
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pgid = await new Promise<number>((resolve) => child.stdout.once('data', (b) => resolve(Number(b))));
    expect(groupAlive(pgid)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitUntil(() => !groupAlive(pgid))).toBe(true);
  });
});
