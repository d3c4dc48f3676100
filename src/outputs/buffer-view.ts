// Kept bytes (an output, a read, a worker's answer) seen as a Buffer without a copy: every
// layer that hands bytes on as a Buffer takes this one view.

/** `bytes` as a Buffer over the same memory. */
export const bufferView = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
