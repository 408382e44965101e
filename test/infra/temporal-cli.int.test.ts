import { describe, expect, it } from 'vitest';
import { loadTemporalTarget, temporalConfigured } from '../../worker/connection.ts';
import {
  ephemeralExecutable,
  findTemporalCli,
  PROJECT_LOCAL_CLI,
  SDK_DOWNLOAD,
} from '../../worker/temporal-cli.ts';

describe('findTemporalCli', () => {
  it('prefers $TEMPORAL_CLI', async () => {
    expect(await findTemporalCli({ TEMPORAL_CLI: PROJECT_LOCAL_CLI, PATH: '/usr/bin' })).toBe(
      PROJECT_LOCAL_CLI,
    );
  });

  it('refuses a $TEMPORAL_CLI that does not exist and says how to install', async () => {
    await expect(findTemporalCli({ TEMPORAL_CLI: '/nowhere/temporal' })).rejects.toThrow(/npm run setup/);
  });

  it('finds `temporal` on PATH before the project-local install', async () => {
    const dir = PROJECT_LOCAL_CLI.replace(/\/temporal$/, '');
    expect(await findTemporalCli({ PATH: `/nonexistent:${dir}` })).toBe(PROJECT_LOCAL_CLI);
  });

  it('falls back to the project-local install from any working directory', async () => {
    expect(await findTemporalCli({ PATH: '/nonexistent' })).toBe(PROJECT_LOCAL_CLI);
  });

  it('maps the lookup onto @temporalio/testing executables', () => {
    expect(ephemeralExecutable(PROJECT_LOCAL_CLI)).toEqual({
      type: 'existing-path',
      path: PROJECT_LOCAL_CLI,
    });
    expect(ephemeralExecutable(SDK_DOWNLOAD)).toEqual({ type: 'cached-download' });
  });
});

describe('connection settings (envconfig)', () => {
  const noFile = { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' };

  it('uses the embedded default when nothing points at a Temporal', () => {
    expect(temporalConfigured(noFile)).toBe(false);
    expect(temporalConfigured({ ...noFile, TEMPORAL_ADDRESS: 'temporal:7233' })).toBe(true);
  });

  it('turns on TLS for Temporal Cloud with an API key', () => {
    const target = loadTemporalTarget({
      env: {
        ...noFile,
        TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
        TEMPORAL_NAMESPACE: 'ns.acct',
        TEMPORAL_API_KEY: 'k',
      },
    });
    expect(target).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', namespace: 'ns.acct' });
    expect(target.connectionOptions).toMatchObject({ apiKey: 'k', tls: true });
  });

  it('never sends remote credentials to a local server of ours', () => {
    const target = loadTemporalTarget({
      env: { ...noFile, TEMPORAL_API_KEY: 'k' },
      localAddress: '127.0.0.1:7233',
    });
    expect(target.connectionOptions).toEqual({ address: '127.0.0.1:7233' });
  });
});
