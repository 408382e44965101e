/**
 * The Host header of every request, on every route (unknown ones included), is one the emulator
 * answers to: a DNS-rebinding page (a site whose name the attacker re-points at 127.0.0.1) reaches
 * the loopback socket but sends its own name as Host, so it gets 421 before any handler, the key-
 * less `/_emulator` controls and the CDN included.
 *
 * Answered to: `localhost` (and `*.localhost`, which resolves to loopback by RFC 6761), any IP
 * literal (a rebinding page never has one: its origin would be that address), the machine's host
 * name, and the names in `allowedHosts` (`MEDIAFLOW_EMULATOR_HOSTS`, comma-separated: docker-compose
 * reaches the emulator as `emulator`). A request without Host (HTTP/1.0) comes from no browser.
 */
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

/** The names an emulator answers to, besides loopback names and IP literals. */
export function allowedHostNames(extra: readonly string[]): Set<string> {
  return new Set([hostname(), ...extra].map(normalise).filter(Boolean));
}

/** The host part of a Host header: no port, no brackets, lower case, no trailing dot. */
export function hostOf(header: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(header.trim());
  if (bracketed) return bracketed[1]!.toLowerCase();
  return normalise(header.replace(/:\d*$/, ''));
}

export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (header === undefined) return true;
  const host = hostOf(header);
  if (host === '') return false;
  if (isIP(host)) return true;
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return allowed.has(host);
}

export function installHostCheck(app: FastifyInstance, allowed: ReadonlySet<string>): void {
  app.addHook('onRequest', async (request) => {
    if (hostAllowed(request.headers.host, allowed)) return;
    throw new ApiError(
      'MISDIRECTED_REQUEST',
      'this emulator does not answer to that Host; add the name to MEDIAFLOW_EMULATOR_HOSTS',
    );
  });
}

function normalise(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}
