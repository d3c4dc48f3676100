// What a join of the bundled preview needs of the files it reads (README "The bundled preview"):
// each module's and sheet's output written once per content, at its address's path, in a
// directory of the service's own. src/bundlers/page-bundle.ts joins them; the directory and its
// writes are src/io/join-directory.ts's, as every file-system write of the service is io/'s
// (ARCHITECTURE.md "Layers"). No engine and no I/O here: io/ takes these.

import type { Diagnostic } from '../workspace/diagnostics.js';

/** A join that cannot be made (a file not written, an output esbuild refuses): the page request says why. */
export class PageBundleError extends Error {
  /** One per error esbuild gave, naming the joined output by its address (README "The bundled preview"); empty when the join could not start. */
  readonly diagnostics: Diagnostic[];

  constructor(message: string, diagnostics: Diagnostic[] = []) {
    super(message);
    this.diagnostics = diagnostics;
  }
}

// A joined file is named by its address without the query (one address per module or sheet
// in a page): the query is the same development query for all, and would only lengthen the
// file comments esbuild writes before each one.
export const pathOf = (address: string) => address.replace(/\?.*$/, '');

/**
 * Where a join finds its modules and sheets: files in a directory of the service's own (a
 * temporary one, removed with the service), named by their address and content hash, so a
 * file once written is the same bytes for every join that names it.
 */
export interface JoinFiles {
  /** The directory, made when first asked for. */
  dir(): string;
  /** The file of the content `hash` served at `address` (`map.js`, `map.css`: with its inline source map). */
  fileOf(address: string, hash: string, extension: JoinedExtension): string;
  /** Writes each file not written yet; its content is asked for only then. */
  write(files: readonly { file: string; content: () => string | Promise<string> }[]): Promise<void>;
  /** Removes the written files not in `keep`. */
  retain(keep: ReadonlySet<string>): void;
  /** Forgets what was written: after a failed join, the next one writes every file again (the directory may have gone). */
  forget(): void;
  /** Removes the directory and everything in it. */
  remove(): void;
}

export type JoinedExtension = 'js' | 'css' | 'map.js' | 'map.css';
