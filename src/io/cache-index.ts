// The build cache's index, `builds.json` (README "The build cache"): its format, and the checks
// that decide whether what was read may be used at all. The file ends with a hash of everything
// before it, written last: any byte changed since it was written (a member renamed, one letter of
// a path, a cut) makes the whole index a miss, which no check of shapes could see. Each entry,
// pack and the saved model is then also checked for its shape by the small checkers below, so
// that not even an index of a faulty writer can reach the reducer as something else. A JSON
// schema compiled at run time (ajv) would cost every start its compilation, and still not see
// a changed letter.
import { DIAGNOSTIC_KINDS } from '../codes.js';
import type { BuildOutputs, OutputRef } from '../store/events.js';
import type { BuildRecord } from '../store/state.js';
import type { UnreadPackage, WorkspaceModel } from '../workspace/model.js';
import { contentHash, isContentHash } from '../outputs/content-hash.js';
import { isPlainRelative, type FileSignature } from './file-hashes.js';
import type { ReadLinks } from './read-links.js';
import { isObject } from '../workspace/json.js';

/** Bumped whenever what an entry means changes: an older cache is then ignored whole. */
export const CACHE_FORMAT = 9;

/** What keys the whole cache besides each entry's own facts: a service or esbuild of another version never trusts it. */
export interface CacheIdentity {
  /** The version of @core-js/packages. */
  service: string;
  /** esbuild's version: the built-in bundlers' compiler. */
  esbuild: string;
  /** A hash of the built-in bundlers' own code (`src/bundlers/`): how they call esbuild. */
  bundlers: string;
}

export interface CacheEntry {
  module: string;
  variant: string;
  /** The module's declaration as the reducer fingerprints it (entry, assets, bundler, define...). */
  fingerprint: string;
  bundler: string;
  /** The workspace's public modules and packages: what decides which imports stay external. */
  boundaries: string;
  record: Omit<BuildRecord, 'build' | 'errors' | 'outputs'> & { outputs: BuildOutputs };
  /** The stat each input's hash was taken with: an input whose stat is unchanged is not read again. */
  signatures?: Record<string, FileSignature>;
}

/**
 * The workspace model as last saved, and the stat each of its sources (manifests and listings)
 * was read with: when every one is unchanged, reading them again would give this very model.
 */
export interface WorkspaceSnapshot {
  /** A hash of the code that reads manifests (src/workspace/): a model read otherwise is not taken. */
  reader: string;
  model: WorkspaceModel;
  /** Of each source that exists; one the model records absent (null) is checked absent. */
  signatures: Record<string, FileSignature>;
  /** What the read asked of links (`recordingLinks`): where a link leads shows in no source's stat. */
  links: ReadLinks;
}

/** Outputs one after the other in one file of `outputs/`. */
export interface OutputPack {
  file: string;
  /** Where each output the entries name starts, by hash; its size is in the entries. */
  at: Record<string, number>;
}

export interface CacheIndex {
  format: typeof CACHE_FORMAT;
  identity: CacheIdentity;
  /** The workspace's real path: a cache of another workspace is foreign. */
  root: string;
  entries: CacheEntry[];
  packs: OutputPack[];
  workspace?: WorkspaceSnapshot;
}

export const PACK_NAME = /^[0-9a-f]{16}\.pack$/;

/** The index's text: its JSON, the hash of that JSON as its last member. */
export const indexText = (index: CacheIndex): string => sealedIndex(index).text;

/** The index's text and the checksum it ends with. */
export function sealedIndex(index: CacheIndex): { text: string; checksum: string } {
  const body = JSON.stringify(index);
  const checksum = contentHash(body);
  return { text: `${body.slice(0, -1)},"checksum":"${checksum}"}`, checksum };
}

const CHECKSUM = /,"checksum":"([A-Za-z0-9_-]{22})"}$/;

/**
 * The index `text` as written, or why it cannot be used: `damaged` when it is not what a writer
 * of this format wrote (a bad cache, said once), else a plain miss (none yet, another version,
 * another workspace). Entries, packs and the saved model are checked one by one on use.
 */
export function parseIndex(text: string, expected: { identity: CacheIdentity; root: string; file: string }): { index: CacheIndex; checksum: string } | { ignored: string; damaged: boolean } {
  const { file } = expected;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ignored: `${file} is not JSON (cut off or corrupt)`, damaged: true };
  }
  if (!isRecord(value) || typeof value.format !== 'number') return { ignored: `${file} has no format`, damaged: true };
  // Formats before this one carry no checksum; any other text without a matching one was changed.
  const sealed = CHECKSUM.exec(text);
  if (!sealed && value.format < CACHE_FORMAT) return { ignored: `${file} is of another format`, damaged: false };
  if (!sealed || contentHash(`${text.slice(0, sealed.index)}}`) !== sealed[1]) return { ignored: `${file} was changed after it was written (its checksum differs)`, damaged: true };
  if (value.format !== CACHE_FORMAT) return { ignored: `${file} is of another format`, damaged: false };
  const { identity, root, entries, packs } = value;
  if (!isRecord(identity) || typeof root !== 'string' || !Array.isArray(entries) || !Array.isArray(packs)) return { ignored: `${file} lacks its identity, root, entries or packs`, damaged: true };
  if (identity.service !== expected.identity.service || identity.esbuild !== expected.identity.esbuild) {
    return { ignored: `the cache was written by @core-js/packages ${String(identity.service)} with esbuild ${String(identity.esbuild)}`, damaged: false };
  }
  if (identity.bundlers !== expected.identity.bundlers) return { ignored: 'the cache was written by other code of the built-in bundlers', damaged: false };
  if (root !== expected.root) return { ignored: `the cache belongs to another workspace (${root})`, damaged: false };
  const { checksum: _checksum, ...index } = value;
  return { index: index as unknown as CacheIndex, checksum: sealed[1]! };
}

// The checkers: what each part of the index must be before any of it is used. Plain functions
// over `unknown`, each narrowing to the type the rest of the code relies on.

type Checked = Record<string, unknown>;

const isRecord = (value: unknown): value is Checked => isObject(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isArrayOf = <T>(value: unknown, item: (value: unknown) => value is T): value is T[] => Array.isArray(value) && value.every(item);
const isRecordOf = <T>(value: unknown, item: (value: unknown) => value is T): value is Record<string, T> => isRecord(value) && Object.values(value).every(item);
const isOptional = <T>(value: unknown, item: (value: unknown) => value is T): value is T | undefined => value === undefined || item(value);
const isHashOrAbsent = (value: unknown): value is string | null => value === null || isContentHash(value);
/** Every path is workspace-relative and plain: one that is not is never stat'ed or read for the cache (a miss). */
export const arePlainPaths = (record: object): boolean => Object.keys(record).every(isPlainRelative);

const isOutputRef = (value: unknown): value is OutputRef => isRecord(value) && isContentHash(value.hash) && isCount(value.size);

// One per input and per workspace source of an index (thousands): checked without a copy of each.
export function isFileSignature(value: unknown): value is FileSignature {
  if (!Array.isArray(value) || value.length !== 6 || !isContentHash(value[0])) return false;
  for (let at = 1; at < 6; at += 1) if (!Number.isFinite(value[at])) return false;
  return true;
}

const isPosition = (value: unknown): boolean => value === undefined || isCount(value);

const isImportRecord = (value: unknown): value is BuildRecord['imports'][number] =>
  isRecord(value) && isString(value.specifier) && isString(value.file) && isPosition(value.line) && isPosition(value.column) && isOptional(value.written, isString) && isOptional(value.dynamic, (dynamic): dynamic is true => dynamic === true);

const isDiagnostic = (value: unknown): value is WorkspaceModel['diagnostics'][number] =>
  isRecord(value) && isString(value.kind) && Object.hasOwn(DIAGNOSTIC_KINDS, value.kind) && isString(value.message) && isOptional(value.file, isString) && isPosition(value.line) && isPosition(value.column);

export function isCacheEntry(value: unknown): value is CacheEntry {
  if (!isRecord(value) || !isString(value.module) || !isString(value.variant) || !isString(value.fingerprint) || !isString(value.bundler) || !isString(value.boundaries)) return false;
  const { record, signatures } = value;
  if (!isRecord(record) || !isRecord(record.outputs) || !isOutputRef(record.outputs.code) || !(record.outputs.styles === null || isOutputRef(record.outputs.styles))) return false;
  if (!isOptional(record.outputs.chunks, (chunks) => isRecordOf(chunks, isOutputRef)) || !isOptional(record.shared, (shared) => isArrayOf(shared, isString))) return false;
  if (!isRecordOf(record.inputs, isHashOrAbsent) || !isArrayOf(record.imports, isImportRecord) || !isOptional(record.warnings, (warnings) => isArrayOf(warnings, isDiagnostic))) return false;
  if (!isOptional(record.resolution, (resolution) => isDependsOn(resolution, record.inputs as Checked))) return false;
  if (!isOptional(record.links, isLinkNames) || !isOptional(record.chunkLinks, (chunkLinks) => isRecordOf(chunkLinks, isLinkNames))) return false;
  if (!isOptional(record.sharedImports, (sharedImports) => isArrayOf(sharedImports, isImportRecord)) || !isOptional(record.shims, isShimFacts)) return false;
  return signatures === undefined || isRecordOf(signatures, isFileSignature);
}

/** A record's shim facts (README "Bundling real code", Shims), as `shimFacts` makes them. */
const isShimFacts = (value: unknown): value is Checked =>
  isRecord(value) && isArrayOf(value.writes, isString) && isArrayOf(value.effects, isString) && isOptional(value.others, isNamesOrAny);

/** The other names a record's shim facts say its code writes: null for any (README "Bundling real code", Shims). */
const isNamesOrAny = (value: unknown): value is string[] | null => value === null || isArrayOf(value, isString);

const isLinkImport = (value: unknown): value is Checked => isRecord(value) && isString(value.specifier) && isArrayOf(value.names, isString);

const isLinkReexport = (value: unknown): value is Checked => isRecord(value) && isString(value.name) && isString(value.specifier) && isString(value.imported);

const isLinkNamespace = (value: unknown): value is Checked => isRecord(value) && isString(value.name) && isString(value.specifier);

/** A record's link names (README "Bundling real code"), as `scanLinkNames` makes them. */
const isLinkNames = (value: unknown): value is Checked =>
  isRecord(value) &&
  isArrayOf(value.exports, isString) &&
  isOptional(value.stars, (stars) => isArrayOf(stars, isString)) &&
  isOptional(value.imports, (imports) => isArrayOf(imports, isLinkImport)) &&
  isOptional(value.reexports, (reexports) => isArrayOf(reexports, isLinkReexport)) &&
  isOptional(value.namespaces, (namespaces) => isArrayOf(namespaces, isLinkNamespace));

/** What a build only depends on (`BuildFindings.resolution`): paths of its record's inputs. */
export const isDependsOn = (value: unknown, inputs: Checked): value is string[] => isArrayOf(value, isString) && value.every((file) => Object.hasOwn(inputs, file));

export const isOutputPack = (value: unknown): value is OutputPack => isRecord(value) && isString(value.file) && PACK_NAME.test(value.file) && isRecordOf(value.at, isCount);

// A model's paths are what the service reads and imports (README "The build cache", "A team's
// remote cache"): only plain workspace-relative ones (`.` and `` the root), whoever wrote it.
const isPlainPath = (value: unknown): value is string => isString(value) && isPlainRelative(value);

const isPackageModel = (value: unknown): value is Checked =>
  isRecord(value) && isString(value.name) && isString(value.version) && isPlainPath(value.dir) && isRecordOf(value.dependencies, isString);

const isBundlerRef = (value: unknown): boolean => isRecord(value) && isString(value.name) && isString(value.specifier) && isOptional(value.processors, isRecord);

const isModuleModel = (value: unknown): value is Checked =>
  isRecord(value) &&
  isString(value.specifier) &&
  isString(value.package) &&
  isString(value.version) &&
  isString(value.subpath) &&
  isPlainPath(value.dir) &&
  (value.entry === null || isPlainPath(value.entry)) &&
  isArrayOf(value.platforms, (platform): platform is string => platform === 'web' || platform === 'node') &&
  isBundlerRef(value.bundler) &&
  isArrayOf(value.assets, isPlainPath) &&
  isArrayOf(value.diagnostics, isDiagnostic) &&
  isOptional(value.define, (define) => isRecordOf(define, isString));

const isUnreadPackage = (value: unknown): value is UnreadPackage =>
  isRecord(value) && isPlainPath(value.dir) && isPlainPath(value.file) && (value.name === null || isString(value.name)) && (value.version === null || isString(value.version)) && (value.absent === undefined || value.absent === true) && (value.lastReadName === undefined || isString(value.lastReadName));

/** The model as `readWorkspace` makes it, every member of its type: the reducer and the routes take it as read. */
export function isWorkspaceModel(value: unknown): value is WorkspaceModel {
  if (!isRecord(value)) return false;
  return (
    (value.preview === null || isString(value.preview)) &&
    isArrayOf(value.packages, isPackageModel) &&
    isArrayOf(value.modules, isModuleModel) &&
    (value.selection === null || isArrayOf(value.selection, isString)) &&
    isArrayOf(value.diagnostics, isDiagnostic) &&
    isOptional(value.warnings, (warnings) => isArrayOf(warnings, isDiagnostic)) &&
    isOptional(value.unreadPackages, (unread) => isArrayOf(unread, isUnreadPackage)) &&
    isOptional(value.linkedDirs, (linked): linked is Record<string, string> => isRecordOf(linked, isPlainPath) && arePlainPaths(linked)) &&
    isRecordOf(value.sources, isHashOrAbsent)
  );
}

/** Links as `recordingLinks` records them, every path plain and workspace-relative: none other is ever asked of the disk. */
export const isReadLinks = (value: unknown): value is ReadLinks =>
  isRecord(value) &&
  isRecordOf(value.realPaths, (real): real is string | null => real === null || (isString(real) && isPlainRelative(real))) &&
  arePlainPaths(value.realPaths) &&
  isRecordOf(value.leaves, (leaves): leaves is boolean => typeof leaves === 'boolean') &&
  arePlainPaths(value.leaves);

export const isWorkspaceSnapshot = (value: unknown): value is WorkspaceSnapshot =>
  isRecord(value) && isString(value.reader) && isWorkspaceModel(value.model) && isRecordOf(value.signatures, isFileSignature) && isReadLinks(value.links);
