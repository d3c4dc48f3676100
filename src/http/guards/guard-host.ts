// The DNS-rebinding guard (README "Error codes", SECURITY.md): a page of another site that resolves its own
// host name to 127.0.0.1 still sends its own name in `Host`, and is refused.
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { ServiceError } from '../errors.js';
import type { RequestGuard } from './request-guard.js';

export interface HostPolicy {
  /** Host names allowed besides localhost, 127.0.0.1 and [::1] (`--host`, `--allowed-host`). */
  allowedHosts: readonly string[];
  /** Bound to every interface: any IP address is a real address of the machine, never a rebound name. */
  anyAddress: boolean;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/** The host name of a `Host` header (no port, no brackets, lower case), or null when malformed. */
export function hostName(header: string | undefined): string | null {
  if (!header || header.length > 255) return null;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/.exec(header.trim());
  if (!match || (match[3] !== undefined && Number(match[3]) > 65535)) return null;
  if (match[1] !== undefined) return isIP(match[1]) === 6 ? match[1].toLowerCase() : null;
  return match[2]!.toLowerCase().replace(/\.$/, '');
}

export function isHostAllowed(header: string | undefined, policy: HostPolicy): boolean {
  const name = hostName(header);
  if (name === null) return false;
  if (LOOPBACK.has(name) || name.endsWith('.localhost')) return true;
  if (policy.anyAddress && isIP(name) !== 0) return true;
  return policy.allowedHosts.some((host) => host.toLowerCase().replace(/^\[|\]$/g, '') === name);
}

export function guardHost(policy: HostPolicy): RequestGuard {
  // A page load asks with the same few Host headers again and again.
  const seen = new Map<string, boolean>();
  const allowed = (header: string) => {
    let verdict = seen.get(header);
    if (verdict === undefined) {
      if (seen.size > 64) seen.clear();
      seen.set(header, (verdict = isHostAllowed(header, policy)));
    }
    return verdict;
  };
  return function guardHost(request: IncomingMessage) {
    // An absolute-form target (`GET http://name/...`) names its host itself, and the Host
    // header is then ignored by HTTP/1.1: that name is the one to check.
    const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(request.url ?? '');
    const header = absolute ? absolute[1]! : request.headers.host;
    if (header !== undefined && allowed(header)) return null;
    return new ServiceError('HOST_NOT_ALLOWED', `the Host ${header ? `"${header.slice(0, 100)}"` : '(none)'} is not allowed: use localhost or 127.0.0.1, or start the service with --allowed-host ${hostName(header) ?? '<name>'}`);
  };
}
