// The query of the `modules` and `styles` addresses (README "Addresses"). Absent parameters take
// their defaults; `min` and `sourcemap` default to what `env` requires, so `?env=production`
// alone asks for the minified, map-less output rather than being refused.
import type { Variant } from './variant.js';

/** The development query, every parameter spelled out (what pages and messages use). */
export const DEVELOPMENT_QUERY = 'target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false';
export const PRODUCTION_QUERY = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';

const ALLOWED: Record<string, readonly string[] | null> = {
  target: ['browser', 'node'],
  format: ['esm'],
  env: ['development', 'production'],
  min: ['false', 'true'],
  sourcemap: ['inline', 'none'],
  types: ['false'],
  css: ['false'],
  // A cache-busting token (the `href` of a `styles` message carries one); any value.
  v: null,
};

export type QueryResult = { ok: true; variant: Variant } | { ok: false; message: string };

export function parseOutputQuery(search: URLSearchParams): QueryResult {
  const seen = new Map<string, string>();
  for (const [name, value] of search) {
    // Own members only: `constructor` or `__proto__` in a query are unknown parameters,
    // not members of Object.prototype (`in` would find those and crash below).
    if (!Object.hasOwn(ALLOWED, name)) {
      return { ok: false, message: `the query parameter "${name}" is not supported; the parameters are ${Object.keys(ALLOWED).join(', ')}` };
    }
    if (seen.has(name)) return { ok: false, message: `the query parameter "${name}" is given twice` };
    const allowed = ALLOWED[name];
    if (allowed && !allowed.includes(value)) {
      return { ok: false, message: `${name}=${value} is not supported; ${name} may be ${allowed.join(' or ')}` };
    }
    seen.set(name, value);
  }
  const env = (seen.get('env') ?? 'development') as Variant['env'];
  const production = env === 'production';
  const min = (seen.get('min') ?? String(production)) === 'true';
  const sourcemap = (seen.get('sourcemap') ?? (production ? 'none' : 'inline')) as Variant['sourcemap'];
  if (production && !min) return { ok: false, message: 'env=production with min=false is not supported: production output is minified only; use min=true' };
  if (production && sourcemap !== 'none') return { ok: false, message: `env=production with sourcemap=${sourcemap} is not supported: production output carries no source map; use sourcemap=none` };
  return { ok: true, variant: { target: (seen.get('target') ?? 'browser') as Variant['target'], env, min, sourcemap } };
}

/** Only the cache-busting token is accepted on asset addresses. */
