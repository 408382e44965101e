/**
 * `review --listen`: every spelling of every address is every address, so none escapes the rule
 * that serving on all of them needs `--public-url` (cli/commands/review.ts).
 */
import { describe, expect, it } from 'vitest';
import { everyAddress, listenAddress } from '../../cli/commands/review-link.ts';

describe('--listen', () => {
  it.each([
    '0.0.0.0:8470',
    '0:8470',
    '0x0:8470',
    '0.0',
    '[::]:8470',
    '[::0]:8470',
    '[0:0:0:0:0:0:0:0]:8470',
    '[::ffff:0.0.0.0]',
  ])('%s listens on every address', (listen) => {
    expect(everyAddress(listenAddress(listen, undefined).host)).toBe(true);
  });

  it.each([
    ['127.1:9000', '127.0.0.1', 9000],
    ['LOCALHOST', 'localhost', 0],
    ['[::1]:8470', '::1', 8470],
    ['192.168.1.20:8470', '192.168.1.20', 8470],
  ])('%s is one address, written as the system reads it', (listen, host, port) => {
    const address = listenAddress(listen, undefined);
    expect(address).toEqual({ host, port });
    expect(everyAddress(address.host)).toBe(false);
  });

  it('a host no resolver could read is refused', () => {
    expect(() => listenAddress('[zz]:1', undefined)).toThrow('expected HOST or HOST:PORT');
  });
});
