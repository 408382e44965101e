/** A parsed JSON reply: its shape is what the assertions check. */
// biome-ignore lint/suspicious/noExplicitAny: raw JSON from the wire, checked field by field by the tests
export type Json = any;
