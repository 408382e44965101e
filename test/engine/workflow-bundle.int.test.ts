/**
 * The workflow bundle of a worker process (worker/workflow-bundle.ts) lives in the temp folder
 * while the process does, and goes with it: every worker start used to leave 2 MB behind. Its
 * source map names the TypeScript line of a stack frame without carrying the sources.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { PREBUILT_BUNDLE_ENV } from '../../worker/workflow-bundle.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';

const MODULE = fileURLToPath(new URL('../../worker/workflow-bundle.ts', import.meta.url));

function withoutPrebuilt(): NodeJS.ProcessEnv {
  const { [PREBUILT_BUNDLE_ENV]: _prebuilt, ...env } = process.env;
  return env;
}

it('removes the workflow bundle from the temp folder when the process exits', async () => {
  const script = `
    import { existsSync } from 'node:fs';
    const { workflowBundle } = await import(${JSON.stringify(MODULE)});
    const { codePath } = await workflowBundle();
    console.log(JSON.stringify({ codePath, existed: existsSync(codePath) }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    // Without the suite's prebuilt bundle (test/global-setup.ts), which the process would take.
    { cwd: fileURLToPath(new URL('../..', import.meta.url)), timeout: 120_000, env: withoutPrebuilt() },
  );
  const { codePath, existed } = JSON.parse(stdout) as { codePath: string; existed: boolean };
  expect(existed).toBe(true);
  expect(existsSync(codePath)).toBe(false);
}, 150_000);

it('maps a workflow stack frame to its TypeScript file and line, with no sources inside the bundle', () => {
  const code = readFileSync(suiteWorkflowBundle().codePath, 'utf8');
  const comment = code.lastIndexOf('//# sourceMappingURL=data:');
  const payload = JSON.parse(
    Buffer.from(code.slice(code.indexOf('base64,', comment) + 7), 'base64').toString(),
  );
  expect(payload.sourcesContent).toBeUndefined();
  const marker = "'campaign run started'";
  const source = fileURLToPath(new URL('../../workflows/runtime/campaign.ts', import.meta.url));
  const line = readFileSync(source, 'utf8')
    .split('\n')
    .findIndex((text) => text.includes(marker));
  const bundled = code.split('\n').findIndex((text) => text.includes(marker));
  expect(line).toBeGreaterThan(0);
  // 0-based, as a stack frame's line minus one.
  const entry = new SourceMap(payload).findEntry(bundled, 0);
  expect(entry).toMatchObject({ originalSource: source, originalLine: line });
});
