/** The Manifests a worker keeps open: one per output location, for the few locations used last. */
import { openStore, type Store } from '../store/index.ts';
import { type LineWriter, nodeWriter } from './jsonl.ts';
import { Manifest } from './manifest.ts';

/**
 * One Manifest per output location per worker process, for the few locations used last: each holds
 * its index, so a worker serving campaign after campaign keeps only theirs (reopening rereads).
 */
const OPEN_MANIFESTS = 8;

export class Manifests {
  private readonly open = new Map<string, Promise<Manifest>>();

  private readonly storeOf: (location: string) => Store;
  private readonly writer: LineWriter;

  constructor(storeOf: (location: string) => Store = openStore, writer: LineWriter = nodeWriter) {
    this.storeOf = storeOf;
    this.writer = writer;
  }

  of(outputDir: string): Promise<Manifest> {
    let manifest = this.open.get(outputDir);
    if (!manifest) {
      manifest = Manifest.open(outputDir, this.writer, this.storeOf(outputDir));
      manifest.catch(() => this.open.delete(outputDir));
    }
    this.open.delete(outputDir); // set again last: the location used longest ago goes first
    this.open.set(outputDir, manifest);
    if (this.open.size > OPEN_MANIFESTS) this.open.delete(this.open.keys().next().value!);
    return manifest;
  }
}
