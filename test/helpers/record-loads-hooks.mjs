// The module hooks of record-loads.mjs, run on Node's loader thread.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

let out;
export function initialize(data) {
  out = data.out;
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) fs.appendFileSync(out, `${fileURLToPath(url)}\n`);
  return nextLoad(url, context);
}
