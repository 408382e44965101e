/**
 * A throwaway PostgreSQL cluster for the local Temporal cluster (cluster.ts): initdb in a folder of
 * its own, served on a free 127.0.0.1 port with its socket in that folder, stopped and started
 * again with pg_ctl (the drill restarts it mid-campaign). Debian's package: initdb and pg_ctl live
 * in /usr/lib/postgresql/<major>/bin, off PATH, and PostgreSQL refuses to run as root, so as root
 * every command runs as the `postgres` user through runuser.
 *
 * Durability is traded for speed (fsync, synchronous_commit and full-page writes off): the data
 * outlives a clean restart, which is what the drill does to it, not a power cut.
 */
import { execFile as execFileCallback, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../worker/process-group.ts';

const execFile = promisify(execFileCallback);

/** The role Temporal connects as (docker-compose.yml's POSTGRES_USER); trusted, no password. */
export const POSTGRES_USER = 'temporal';

export interface Postgres {
  readonly port: number;
  /** The postmaster's pid (its backends are its children), for its CPU from /proc; 0 when stopped. */
  pid(): number;
  /** `pg_ctl stop -m fast` then start again on the same port over the same data. */
  restart(): Promise<void>;
  /** Stops the server (fast shutdown: open connections are closed). */
  stop(): Promise<void>;
}

/** Where initdb and pg_ctl are: the newest Debian major under /usr/lib/postgresql, else PATH. */
export function postgresBinDir(): string {
  const debian = '/usr/lib/postgresql';
  const majors = existsSync(debian)
    ? readdirSync(debian)
        .filter((major) => existsSync(join(debian, major, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0]) return join(debian, majors[0], 'bin');
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .find((dir) => dir && existsSync(join(dir, 'pg_ctl')));
  if (onPath) return onPath;
  throw new Error(
    'PostgreSQL is missing: run scripts/install-temporal-server.sh (apt-get install postgresql)',
  );
}

/** Runs a PostgreSQL program, as the postgres user when we are root. */
function command(program: string, args: string[]): [string, string[]] {
  const path = join(postgresBinDir(), program);
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

async function run(program: string, args: string[]): Promise<void> {
  const [file, argv] = command(program, args);
  await execFile(file, argv, { timeout: 60_000 });
}

/** Hands `dir` to the postgres user when we are root (initdb and the server write there). */
function ownedByPostgres(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (process.getuid?.() !== 0) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  chownSync(dir, uid, gid);
}

/** Initialises a cluster in `dir` (created, and owned by postgres when root) and starts it. */
export async function startPostgres(dir: string): Promise<Postgres> {
  ownedByPostgres(dir);
  const data = join(dir, 'data');
  await run('initdb', ['-D', data, '-U', POSTGRES_USER, '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    // Four Temporal services hold up to 30 connections each (deploy/temporal/config.yaml).
    '-c max_connections=200',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ].join(' ');
  const start = () =>
    run('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-o', options, '-w', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  // pg_ctl leaves the server running on its own: stop it if we exit without stop().
  const stopOnExit = () => {
    const [file, argv] = command('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    try {
      execFileSync(file, argv, { stdio: 'ignore' });
    } catch {
      // Already stopped.
    }
  };
  await start();
  process.on('exit', stopOnExit);
  return {
    port,
    // postmaster.pid's first line, while the server runs (pg_ctl removes the file on stop).
    pid: () => {
      try {
        return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]) || 0;
      } catch {
        return 0;
      }
    },
    async restart() {
      await stop();
      await start();
    },
    async stop() {
      process.off('exit', stopOnExit);
      await stop();
    },
  };
}
