// What a workspace read asked of links besides its sources (README "Links and large trees"): no
// hash of a manifest or listing shows where a link leads, and the read follows a link (a
// tsconfig's `extends` through a package link) or tells it (a package directory or `core.modules`
// leaving the workspace). A model kept for a later start, in the build cache or the team's
// remote cache, is taken only when each of these answers is still the one the read was given.
import type { WorkspaceModel } from '../workspace/model.js';
import { readWorkspace } from '../workspace/read-workspace.js';
import type { SourceReader } from '../workspace/source-reader.js';
import type { KnownIdentities } from '../workspace/known-identity.js';
import type { FileHashes } from './file-hashes.js';
import { onePassReader } from './workspace-reads.js';

/** By path, each answer of `realPath` and of `leaves` the read was given. */
export interface ReadLinks {
  realPaths: Record<string, string | null>;
  leaves: Record<string, boolean>;
}

/**
 * The links each read of this run asked, by the `sources` record of the model it made: the store
 * keeps that very record (a read that changed only hashes puts its own in, `workspace.unchanged`),
 * so the model about to be saved is found with the links of the read it came from.
 */
export type LinksOfReads = WeakMap<Readonly<Record<string, string | null>>, ReadLinks>;

/**
 * `reader` recording the answers of its `realPath` and `leaves`: what the model's check asks
 * again. A directory listed by a second path (its listing's `id` seen before: a link to it) the
 * read walks once only, and no hash shows which path it skipped: the real path of both is
 * recorded too, so a checkout where either leads elsewhere is not taken for this read.
 */
export function recordingLinks(reader: SourceReader): { reader: SourceReader; links: ReadLinks } {
  const links: ReadLinks = { realPaths: {}, leaves: {} };
  const realPath = reader.realPath ? (path: string) => (links.realPaths[path] = reader.realPath!(path)) : undefined;
  const firstPathOf = new Map<string, string>();
  const listDir: SourceReader['listDir'] = (path) => {
    const listing = reader.listDir(path);
    if (listing?.id === undefined || !realPath) return listing;
    const first = firstPathOf.get(listing.id);
    if (first === undefined) firstPathOf.set(listing.id, path);
    else if (first !== path) {
      realPath(first);
      realPath(path);
    }
    return listing;
  };
  return {
    links,
    reader: {
      ...reader,
      listDir,
      ...(realPath ? { realPath } : {}),
      ...(reader.leaves ? { leaves: (path: string) => (links.leaves[path] = reader.leaves!(path)) } : {}),
    },
  };
}

/** Each link the read followed or told leads where it led (checked once the sources hold: their listings and files are those). */
export function linksHold({ realPaths, leaves }: ReadLinks, hashes: Pick<FileHashes, 'realPath' | 'leaves'>): boolean {
  return Object.entries(realPaths).every(([path, real]) => hashes.realPath(path) === real) && Object.entries(leaves).every(([path, leaving]) => hashes.leaves(path) === leaving);
}

/** The workspace read as the service reads it (`onePassReader`), with what that read asked of links. */
export function readWithLinks(hashes: FileHashes, deepImports: readonly string[], known?: KnownIdentities): { model: WorkspaceModel; links: ReadLinks } {
  const { reader, links } = recordingLinks(onePassReader(hashes));
  return { model: readWorkspace(reader, deepImports, known), links };
}
