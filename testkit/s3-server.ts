/**
 * A real S3 server for tests, drills and benchmarks: the Versity S3 Gateway (versitygw, installed
 * by `npm run setup` into .tools/bin) on a free 127.0.0.1 port over a temporary folder (its posix
 * backend: each bucket a directory, each object a file). Never a fake: conditional writes,
 * checksums, ranges and multipart uploads are the server's own. One server serves the whole suite
 * (test/global-setup.ts); a drill starts its own to restart it.
 *
 * The root credentials reach the gateway through its environment, never its argv (ps shows argv).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort, groupAlive, terminateGroup } from '../worker/process-group.ts';
import { watchdog } from '../worker/watchdog.ts';

export const VERSITYGW = fileURLToPath(new URL('../.tools/bin/versitygw', import.meta.url));
const READY_TIMEOUT_MS = 20_000;

export interface S3Server {
  /** `http://127.0.0.1:PORT`, the value for AWS_ENDPOINT_URL_S3. */
  readonly endpoint: string;
  /** A bucket created at start. */
  readonly bucket: string;
  /** The environment the AWS SDK reads (endpoint, keys, region): give it to workers and the CLI. */
  readonly env: Readonly<Record<string, string>>;
  /** The folder the gateway serves (the bucket is a directory in it). */
  readonly root: string;
  /** A client with the server's credentials (path-style, like the store uses). */
  client(): S3Client;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
  stop(): Promise<void>;
  /** stop() then start again on the same port over the same folder: objects survive. */
  restart(): Promise<void>;
}

export interface S3ServerOptions {
  /** The folder to serve (default a new temp folder, removed by stop()). */
  root?: string;
  bucket?: string;
}

export async function startS3Server(options: S3ServerOptions = {}): Promise<S3Server> {
  if (!existsSync(VERSITYGW)) {
    throw new Error(
      `${VERSITYGW} is missing: run \`npm run setup\` (scripts/install-versitygw.sh builds it)`,
    );
  }
  const ownRoot = options.root === undefined;
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'mediaflow-s3-')));
  await mkdir(root, { recursive: true });
  const bucket = options.bucket ?? 'mediaflow';
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const env = {
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ACCESS_KEY_ID: `test-${randomBytes(6).toString('hex')}`,
    AWS_SECRET_ACCESS_KEY: randomBytes(24).toString('hex'),
    AWS_REGION: 'us-east-1',
  };
  const client = () =>
    new S3Client({
      endpoint,
      forcePathStyle: true,
      region: env.AWS_REGION,
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
    });
  let running = await launch(root, port, env, client);
  const admin = client();
  await admin.send(new CreateBucketCommand({ Bucket: bucket })).catch((error: unknown) => {
    if (!(error instanceof Error && /BucketAlready(OwnedByYou|Exists)/.test(error.name))) throw error;
  });
  admin.destroy();
  return {
    endpoint,
    bucket,
    env,
    root,
    client,
    async stop() {
      await running.stop();
      if (ownRoot) await rm(root, { recursive: true, force: true });
    },
    async restart() {
      await running.stop();
      running = await launch(root, port, env, client);
    },
  };
}

interface Running {
  stop(): Promise<void>;
}

async function launch(
  root: string,
  port: number,
  env: Record<string, string>,
  client: () => S3Client,
): Promise<Running> {
  const child: ChildProcess = spawn(
    'sh',
    // --keep-alive: versitygw closes every connection after one request unless told, which made
    // each S3 call a new TCP connection (about 220 a second in s3-throughput-2k, and 2.2 s of the
    // worker's CPU in connect alone). S3 services keep connections open; so does our compose file.
    [
      '-c',
      watchdog('TERM'),
      VERSITYGW,
      '--port',
      `127.0.0.1:${port}`,
      '--keep-alive',
      '--quiet',
      'posix',
      root,
    ],
    {
      detached: true,
      stdio: ['pipe', 'ignore', 'pipe'],
      env: {
        ...process.env,
        ROOT_ACCESS_KEY: env.AWS_ACCESS_KEY_ID,
        ROOT_SECRET_KEY: env.AWS_SECRET_ACCESS_KEY,
      },
    },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const pgid = child.pid!;
  child.unref();
  const stop = () => terminateGroup(pgid);
  const probe = client();
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (!groupAlive(pgid)) throw new Error(`versitygw exited during start-up: ${output.trim()}`);
      try {
        await probe.send(new ListBucketsCommand({}));
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`versitygw on ${port} did not answer: ${String(error)}`);
        await sleep(50);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    probe.destroy();
  }
  return { stop };
}
