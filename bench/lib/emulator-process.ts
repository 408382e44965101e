/**
 * The emulator in a process of its own, for benchmarks and drills: the load of the worker under
 * test must not slow the service down (and the other way round). Started by stack.ts with the
 * EmulatorOptions as JSON in argv[2] and the API key in MEDIAFLOW_API_KEY; prints one JSON line
 * with its base URL once listening. It exits when its parent does (stdin closes), even when the
 * parent was killed with SIGKILL, so a crashed drill leaves no emulator behind.
 */
import { startEmulator } from '../../emulator/index.ts';

const options = JSON.parse(process.argv[2] ?? '{}');
const emulator = await startEmulator({ ...options, port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ baseUrl: emulator.baseUrl })}\n`);

// Why it stops, in its log (stderr): a drill that finds the service gone reads only "fetch failed".
const stop = (why: string) => () => {
  process.stderr.write(`emulator stopping: ${why}\n`);
  void emulator.close().finally(() => process.exit(0));
};
process.once('SIGTERM', stop('SIGTERM'));
process.once('SIGINT', stop('SIGINT'));
process.stdin.on('close', stop('stdin closed'));
process.stdin.on('end', stop('stdin ended'));
process.stdin.resume();
