/** A stream's bytes, whole: what the SDK signs and reads (it hashes all of a file). */
export async function whole(body: AsyncIterable<Buffer | Uint8Array>): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of body) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}
