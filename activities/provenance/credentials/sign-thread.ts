/**
 * What a signing thread runs (sign.ts). A task crosses to the thread by the structured clone, which
 * hands every Buffer over as a plain Uint8Array: they are Buffers again here, over the same memory.
 */
import { signHere } from './sign-here.ts';
import type { SignRequest } from './sign-request.ts';
import type { LocalKey } from './signing-key.ts';

export interface SigningTask {
  readonly key: LocalKey;
  readonly request: SignRequest;
}

export default async function signOnThisThread({ key, request }: SigningTask): Promise<Uint8Array> {
  return signHere(
    { ...key, cert: bufferOf(key.cert), key: bufferOf(key.key) },
    {
      ...request,
      bytes: bufferOf(request.bytes),
      served: bufferOf(request.served),
      ingredients: request.ingredients.map((ingredient) => ({
        ...ingredient,
        bytes: bufferOf(ingredient.bytes),
      })),
    },
  );
}

/** A Buffer over the view's bytes, not a copy: what the SDK's bindings read. */
export function bufferOf(view: Uint8Array): Buffer {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
}
