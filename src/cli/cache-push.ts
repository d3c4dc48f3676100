// `core cache push` (README "A team's remote cache"): builds every module's development and
// production variants with the service itself (the build cache saves what it can) and uploads
// them. The one writer of the team's cache: meant for CI on a protected branch, where what is
// built is what the team reads.
import type { KeyObject } from 'node:crypto';
import { ESBUILD_VERSION } from '../bundlers/esbuild-service.js';
import { bundlersCodeHash, workspaceReaderCodeHash } from '../code-hash.js';
import { createFileHashes } from '../io/file-hashes.js';
import { filter, firstValueFrom } from 'rxjs';
import { startService, type Service } from '../service.js';
import { selectSettled, selectSharedFileCopies } from '../store/selectors.js';
import { createRemoteClient } from '../io/remote-cache/client.js';
import type { WantedVariant } from '../io/remote-cache/restore.js';
import { ed25519Key, type RemoteCacheSettings } from '../io/remote-cache/settings.js';
import { startVariants } from '../io/remote-cache/start-restore.js';
import { uploadBuilds, uploadModel, type UploadResult } from '../io/remote-cache/upload.js';
import { readWithLinks } from '../io/read-links.js';
import { VERSION } from '../version.js';
import { defaultVariant, productionVariant, variantKey } from '../workspace/variant.js';
import { UsageError } from './usage-error.js';

/** The signing key of CORE_REMOTE_CACHE_SIGNING_KEY, null when unset, or why it cannot be used. */
export function signingKeyOf(env: NodeJS.ProcessEnv = process.env): { key: KeyObject | null } | { problem: string } {
  const text = env.CORE_REMOTE_CACHE_SIGNING_KEY;
  if (!text) return { key: null };
  const key = ed25519Key(text, 'private');
  return key ? { key } : { problem: 'CORE_REMOTE_CACHE_SIGNING_KEY is not an Ed25519 private key (PEM, or base64 of its PKCS8 DER)' };
}

/**
 * What writing to the team cache needs, checked once for `core cache push` and `core run
 * --remote-cache-write` alike: a cache, a usable signing key, and one whenever readers require
 * signatures (else every entry written would be refused).
 */
export function writeSettings(remote: { settings: RemoteCacheSettings | null; problem?: string }, env: NodeJS.ProcessEnv = process.env): { settings: RemoteCacheSettings; key: KeyObject | null } {
  if (!remote.settings) throw new UsageError(remote.problem ?? 'no team cache to write to: set core.json "remoteCache" or CORE_REMOTE_CACHE');
  const signing = signingKeyOf(env);
  if (!('key' in signing)) throw new UsageError(signing.problem);
  if (remote.settings.publicKey && !signing.key) throw new UsageError('core.json "remoteCache" has a publicKey: set CORE_REMOTE_CACHE_SIGNING_KEY, or readers refuse every entry');
  return { settings: remote.settings, key: signing.key };
}

export async function pushBuilds(root: string, settings: RemoteCacheSettings, signingKey: KeyObject | null, logger: (line: string) => void): Promise<UploadResult & { built: number }> {
  const service = await startService({ root, cache: true, watch: false, logger });
  try {
    const start = startVariants(service.internals.store.getState().workspace);
    const production = start.map(({ module }): WantedVariant => ({ module, variant: variantKey(productionVariant(defaultVariant(module).target)) }));
    const all = [...start, ...production];
    await builtWhole(service, all);
    return { ...(await uploadServiceBuilds(service, all, settings, signingKey)), built: all.length };
  } finally {
    await service.close();
  }
}

// Every variant built from the current sources, and none holding a copy of a shared file that a
// build importing it is about to replace (README "Shared files"): what a page would be answered.
async function builtWhole(service: Service, variants: readonly WantedVariant[]): Promise<void> {
  const { readiness, store } = service.internals;
  for (;;) {
    // As a request for each does: a variant whose build was cancelled is asked for again.
    await Promise.all(variants.map(({ module, variant }) => readiness.variant(module.specifier, variant).catch(() => null)));
    const state = store.getState();
    const done = variants.every(({ module, variant }) => state.builds[module.specifier]?.variants[variant]?.status === 'done');
    if (done && selectSettled(state) && selectSharedFileCopies(state).length === 0) return;
    await firstValueFrom(service.state$.pipe(filter((next) => next !== state)));
  }
}

/** Uploads the builds of `variants` the service holds now (`core cache push`, `core run --remote-cache-write`). */
export async function uploadServiceBuilds(service: Service, variants: readonly WantedVariant[], settings: RemoteCacheSettings, signingKey: KeyObject | null): Promise<UploadResult> {
  const client = createRemoteClient(settings);
  try {
    const state = service.internals.store.getState();
    const identity = { service: VERSION, esbuild: ESBUILD_VERSION, bundlers: bundlersCodeHash() };
    const result = await uploadBuilds(state, variants, startVariants(state.workspace), { client, identity, outputs: service.internals.outputs, signingKey });
    // Unsigned, no model is uploaded (`uploadModel`): not read again either.
    if (result.stopped || state.root === null || signingKey === null) return result;
    // The model a start's first read gives (no deep imports yet), read again here: the service's
    // own may have been read with the deep imports its builds found (README "A team's remote cache").
    const { model, links } = readWithLinks(createFileHashes(state.root), []);
    const modelStored = await uploadModel(model, links, { client, identity: { service: VERSION, reader: workspaceReaderCodeHash() }, signingKey });
    return { ...result, ...(modelStored ? { model: true } : {}) };
  } finally {
    client.close();
  }
}
