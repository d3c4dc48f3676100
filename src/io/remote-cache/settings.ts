// Where the team's remote cache is and how it is trusted (README "A team's remote cache"):
// core.json's `remoteCache`, with the address overridden by CORE_REMOTE_CACHE and a credential
// only ever from CORE_REMOTE_CACHE_HEADER, so that no file of the repository holds one.
import crypto from 'node:crypto';
import path from 'node:path';
import { readRegularFile } from '../../regular-files.js';
import { parseWorkspaceManifest, remoteCacheAddressProblem, shownRemoteCacheAddress } from '../../workspace/workspace-manifest.js';

export interface RemoteCacheSettings {
  /** Where `ac/` and `cas/` are: the address with the instance, ending in `/`. */
  base: URL;
  /** Sent with every request: `[name, value]`, from CORE_REMOTE_CACHE_HEADER. */
  header: readonly [string, string] | null;
  /** Entries without a valid signature by its private key are misses. */
  publicKey: crypto.KeyObject | null;
}

/** The settings, none when no cache is declared, or why the declared one cannot be used. */
export function remoteCacheSettings(root: string, env: NodeJS.ProcessEnv = process.env): { settings: RemoteCacheSettings | null; problem?: string } {
  if (env.CORE_REMOTE_CACHE === 'off') return { settings: null };
  let text: string | null = null;
  try {
    text = readRegularFile(path.join(root, 'core.json')).bytes.toString('utf8'); // Never waits on a FIFO (README "Files that are not files").
  } catch {
    // no core.json, or no regular file: the workspace's own reading says so
  }
  const declared = text === null ? undefined : parseWorkspaceManifest(text).value?.remoteCache;
  // A `remoteCache` written but not readable (a broken core.json, a bad member) may hold the
  // public key every entry must be signed with: without it, nothing is asked rather than
  // unsigned entries taken.
  if (declared === undefined && text !== null && hasRemoteCacheMember(text)) {
    return { settings: null, problem: 'core.json: "remoteCache" cannot be read (the workspace diagnostics say why), so the team cache is not asked' };
  }
  const url = env.CORE_REMOTE_CACHE || declared?.url;
  if (!url) return { settings: null };
  const addressProblem = remoteCacheAddressProblem(url);
  if (addressProblem === 'query') {
    return { settings: null, problem: `CORE_REMOTE_CACHE must hold no query string or fragment: the team cache's addresses are its path and what follows it, so they would be dropped; give a token in CORE_REMOTE_CACHE_HEADER; it is "${shownRemoteCacheAddress(url)}"` };
  }
  if (addressProblem !== null) {
    return { settings: null, problem: `CORE_REMOTE_CACHE must be an http or https address without a credential; it is "${shownRemoteCacheAddress(url)}"` };
  }
  const address = new URL(url);
  const header = parseHeader(env.CORE_REMOTE_CACHE_HEADER);
  if (header === undefined) return { settings: null, problem: 'CORE_REMOTE_CACHE_HEADER must be "Name: value"' };
  let publicKey: crypto.KeyObject | null = null;
  if (declared?.publicKey) {
    publicKey = ed25519Key(declared.publicKey, 'public');
    if (!publicKey) return { settings: null, problem: 'core.json: "remoteCache".publicKey is not an Ed25519 public key (PEM, or base64 of its SPKI DER)' };
  }
  const instance = declared?.instance ? `${declared.instance}/` : '';
  const base = new URL(`${address.pathname.replace(/\/*$/, '/')}${instance}`, address);
  return { settings: { base, header, publicKey } };
}

function parseHeader(text: string | undefined): readonly [string, string] | null | undefined {
  if (!text) return null;
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*([^\r\n]*)$/.exec(text.trim());
  return match ? [match[1]!, match[2]!.trim()] : undefined;
}

/** An Ed25519 key from PEM, or from base64 of its DER (SPKI for a public key, PKCS8 for a private one); null when it is not one. */
export function ed25519Key(text: string, kind: 'public' | 'private'): crypto.KeyObject | null {
  try {
    const trimmed = text.trim();
    const pem = trimmed.startsWith('-----');
    const der = Buffer.from(trimmed, 'base64');
    const key =
      kind === 'public'
        ? crypto.createPublicKey(pem ? trimmed : { key: der, format: 'der', type: 'spki' })
        : crypto.createPrivateKey(pem ? trimmed : { key: der, format: 'der', type: 'pkcs8' });
    return key.asymmetricKeyType === 'ed25519' ? key : null;
  } catch {
    return null;
  }
}

function hasRemoteCacheMember(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && Object.hasOwn(value, 'remoteCache');
  } catch {
    return /"remoteCache"\s*:/.test(text);
  }
}
