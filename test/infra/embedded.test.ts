import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { temporalAnswers } from '../../worker/dev-server.ts';
import { type Embedded, startEmbedded, stopEmbedded } from '../../worker/embedded.ts';
import { temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';

const stateDir = mkdtempSync(join(tmpdir(), 'mediaflow-embedded-'));
afterAll(async () => {
  await stopEmbedded(stateDir);
  rmSync(stateDir, { recursive: true, force: true });
});

async function emulatorHealthy(service: Embedded['service']): Promise<boolean> {
  const response = await fetch(`${service.baseUrl}/health`, {
    headers: { authorization: `Bearer ${service.apiKey}` },
  }).catch(() => undefined);
  return response?.ok ?? false;
}

/** Another `mediaflow run` process: starts (or attaches to) the stack, prints it, then idles. */
function otherProcess(): Promise<{
  kill: () => void;
  embedded: { temporalAddress: string; attached: boolean };
}> {
  const script = `
    import { startEmbedded } from ${JSON.stringify(join(process.cwd(), 'worker/embedded.ts'))};
    const e = await startEmbedded({ stateDir: ${JSON.stringify(stateDir)} });
    console.log(JSON.stringify({ temporalAddress: e.temporalAddress, attached: e.attached }));
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) =>
    child.stdout.once('data', (line) =>
      resolve({
        // Resolves once reaped: a zombie would still count as a live client.
        kill: () => new Promise<void>((exited) => child.once('exit', () => exited()).kill('SIGKILL')),
        embedded: JSON.parse(String(line)),
      }),
    ),
  );
}

describe('the embedded default', () => {
  it('is shared by every run, outlives a crashed one, and stops with the last one', async () => {
    const other = await otherProcess();
    expect(other.embedded.attached).toBe(false);

    const mine = await startEmbedded({ stateDir });
    expect(mine.attached).toBe(true);
    expect(mine.temporalAddress).toBe(other.embedded.temporalAddress);
    expect(mine.service.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(mine.summary).toContain('embedded default');
    expect(mine.summary).not.toContain(mine.service.apiKey);

    await other.kill(); // a run killed hard does not take the stack from the runs still using it
    expect(await temporalAnswers(mine.temporalAddress)).toBe(true);
    expect(await emulatorHealthy(mine.service)).toBe(true);

    await mine.stop(); // the last one out
    expect(await temporalAnswers(mine.temporalAddress)).toBe(false);
    expect(await emulatorHealthy(mine.service)).toBe(false);
  });

  it('keeps campaigns across a full stop (SQLite under stateDir) and when detached keeps the stack up', async () => {
    const first = await startEmbedded({ stateDir });
    const client = await temporalClient(first.temporalAddress);
    await client.workflow.start('neverPolled', {
      taskQueue: uniqueTaskQueue(),
      workflowId: 'embedded-campaign',
    });
    await first.stop();

    const second = await startEmbedded({ stateDir });
    expect(second.attached).toBe(false);
    const resumed = await (await temporalClient(second.temporalAddress)).workflow
      .getHandle('embedded-campaign')
      .describe();
    expect(resumed.status.name).toBe('RUNNING');

    await second.stop({ keepRunning: true }); // Ctrl-C on an unfinished campaign: detach only
    const third = await startEmbedded({ stateDir });
    expect(third.attached).toBe(true);
    expect(third.service).toEqual(second.service);
    await third.stop();
  });
});
