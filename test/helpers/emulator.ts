/**
 * Rate limits high enough that a test firing requests back to back is never refused. The emulator
 * holds one second of tokens (600/min means bursts of 10), so tests that are not about rate limits
 * lift them; the tests that are set their own.
 */
export const UNHURRIED = { createsPerMinute: 600_000, requestsPerMinute: 6_000_000 };
