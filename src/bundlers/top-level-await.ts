// Whether a compiled module awaits at its top level: joined into the bundled preview's one
// script, the modules after it wait for it to finish, where the browser runs a sibling that does
// not import it while it waits (README "The bundled preview"). esbuild tells it: such a module
// has no CommonJS form, and its refusal says so.
import * as esbuild from 'esbuild';
import { serviceCall } from './esbuild-service.js';

const TOP_LEVEL_AWAIT = /top-level await/i;

export async function awaitsAtTopLevel(code: string): Promise<boolean> {
  // Most modules have no `await` at all: no call of esbuild's for them.
  if (!/\bawait\b/.test(code)) return false;
  try {
    await serviceCall(() => esbuild.transform(code, { loader: 'js', format: 'cjs', logLevel: 'silent' }));
    return false;
  } catch (error) {
    // Any other refusal (esbuild gone, code it cannot read): nothing to say here, the join says it.
    return (error as { errors?: esbuild.Message[] }).errors?.some((message) => TOP_LEVEL_AWAIT.test(message.text)) ?? false;
  }
}
