/**
 * API keys of the emulator's single account. Lookup by secret is one Map access, so
 * authentication stays O(1) under load. A deleted key, or the old secret of a rotated key,
 * simply no longer resolves: the next request with it gets 401.
 */
import type { ApiKey } from '../../api/wire/index.ts';
import { ApiError } from '../http/errors.ts';
import { generateApiKey } from '../options.ts';

/** Longest prefix a listing shows; never more than half the secret, so a short key stays hidden. */
const PREFIX_LENGTH = 8;

export interface KeyRecord {
  readonly id: string;
  readonly seq: number;
  readonly name: string;
  secret: string;
  readonly createdAt: string;
}

export class KeyStore {
  private readonly bySecret = new Map<string, KeyRecord>();
  private readonly byId = new Map<string, KeyRecord>();
  private nextSeq = 1;

  constructor(initialSecret: string) {
    this.add('default', initialSecret);
  }

  authenticate(secret: string): KeyRecord | undefined {
    return this.bySecret.get(secret);
  }

  get(id: string): KeyRecord | undefined {
    return this.byId.get(id);
  }

  /** Oldest first, the order pages follow. */
  list(): KeyRecord[] {
    return [...this.byId.values()];
  }

  create(name: string): KeyRecord {
    return this.add(name, generateApiKey());
  }

  /**
   * Refuses the caller's own key and the last key: either would lock everyone holding it out,
   * and the emulator's keys come back only with a restart.
   */
  delete(id: string, callerId: string): boolean {
    const record = this.byId.get(id);
    if (!record) return false;
    if (id === callerId) {
      throw new ApiError('API_KEY_IN_USE', 'a key cannot delete itself; delete it with another key', {
        param: 'id',
      });
    }
    if (this.byId.size === 1) {
      throw new ApiError('LAST_API_KEY', 'the last API key cannot be deleted; create another first', {
        param: 'id',
      });
    }
    this.byId.delete(id);
    this.bySecret.delete(record.secret);
    return true;
  }

  /** Same key id (and rate-limit state), new secret; the old secret stops working at once. */
  rotate(id: string): KeyRecord | undefined {
    const record = this.byId.get(id);
    if (!record) return undefined;
    this.bySecret.delete(record.secret);
    record.secret = generateApiKey();
    this.bySecret.set(record.secret, record);
    return record;
  }

  /** What the state file keeps (emulator/persistence): secrets included, it is mode 0600. */
  save(): { nextSeq: number; keys: KeyRecord[] } {
    return { nextSeq: this.nextSeq, keys: this.list().map((record) => ({ ...record })) };
  }

  /**
   * Replaces the keys with saved ones; `startSecret` (the key the emulator was started with) is
   * added as a new key if it is not among them, so the starter's key always works.
   */
  restore(saved: { nextSeq: number; keys: readonly KeyRecord[] }, startSecret: string): void {
    this.bySecret.clear();
    this.byId.clear();
    for (const key of saved.keys) {
      const record = { ...key };
      this.bySecret.set(record.secret, record);
      this.byId.set(record.id, record);
    }
    this.nextSeq = saved.nextSeq;
    if (!this.bySecret.has(startSecret)) this.add('default', startSecret);
  }

  private add(name: string, secret: string): KeyRecord {
    const seq = this.nextSeq++;
    const record: KeyRecord = { id: `key_${seq}`, seq, name, secret, createdAt: new Date().toISOString() };
    this.bySecret.set(secret, record);
    this.byId.set(record.id, record);
    return record;
  }
}

/** The wire form; the secret itself only when just created or rotated. */
export function apiKeyToWire(record: KeyRecord, revealSecret: boolean): ApiKey {
  return {
    id: record.id,
    name: record.name,
    prefix: record.secret.slice(0, Math.min(PREFIX_LENGTH, Math.floor(record.secret.length / 2))),
    created_at: record.createdAt,
    ...(revealSecret ? { key: record.secret } : {}),
  };
}
