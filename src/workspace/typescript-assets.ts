// A declared asset is served as written (README "Bundling real code"), and a browser cannot run
// TypeScript: a `worker.ts` asset would load as text that fails at its first type. So a
// TypeScript source declared under "assets" is a mistake of the manifest, and one served anyway
// says it is text, never video (`.ts` is also an MPEG transport stream's name, which is kept).

const TYPESCRIPT_SOURCE = /\.(?:[cm]?ts|tsx)$/;
const DECLARATION_FILE = /\.d\.[cm]?ts$/;
/** Every MPEG transport stream packet starts with this byte ("G"). */
const MPEG_TS_SYNC_BYTE = 0x47;

/**
 * Whether an asset named `file`, whose content starts with `content` (bytes, or text as read),
 * is a TypeScript source a browser would be given to run: not a declaration file (types only,
 * never run), and for `.ts`, not an MPEG transport stream (its sync byte first, then binary: a
 * NUL no source holds).
 */
export function isTypeScriptSource(file: string, content: Uint8Array | string): boolean {
  if (!TYPESCRIPT_SOURCE.test(file) || DECLARATION_FILE.test(file)) return false;
  if (!file.endsWith('.ts')) return true;
  const first = typeof content === 'string' ? content.charCodeAt(0) : content[0];
  const binary = typeof content === 'string' ? content.includes('\u0000') : content.includes(0);
  return !(first === MPEG_TS_SYNC_BYTE && binary);
}

/** Whether `file` may be TypeScript by its name alone (no content read), for a TypeScript file of any kind. */
export const hasTypeScriptName = (file: string): boolean => TYPESCRIPT_SOURCE.test(file);
