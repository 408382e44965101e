/**
 * An independent C2PA reader: the CAI's Python SDK (c2pa-python, in `.tools/c2pa-venv`, installed
 * by `npm run setup:all`), reading a file's manifest store as JSON, its validation state included.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const PYTHON = fileURLToPath(new URL('../../.tools/c2pa-venv/bin/python', import.meta.url));
const READ = [
  'import c2pa, sys',
  'with c2pa.Reader(sys.argv[1]) as reader:',
  '    print(reader.json())',
].join('\n');

export interface PythonManifest {
  readonly label?: string;
  readonly assertions: { label: string; data: unknown }[];
  readonly ingredients?: { title?: string; relationship?: string; active_manifest?: string }[];
  readonly signature_info?: { common_name?: string };
  readonly claim_generator_info?: { name?: string }[];
}

export interface PythonReading {
  readonly validation_state: string;
  readonly active_manifest: string;
  readonly manifests: Record<string, PythonManifest>;
  readonly validation_results?: { activeManifest?: { failure?: { code: string }[] } };
}

export async function readWithC2paPython(file: string): Promise<PythonReading> {
  const { stdout } = await promisify(execFile)(PYTHON, ['-c', READ, file]);
  return JSON.parse(stdout) as PythonReading;
}

export function activeManifest(reading: PythonReading): PythonManifest {
  return reading.manifests[reading.active_manifest]!;
}

export function assertionOf(manifest: PythonManifest, label: string): unknown {
  return manifest.assertions.find((assertion) => assertion.label === label)?.data;
}
