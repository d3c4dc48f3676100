// A variant: one way of compiling a module (README "Addresses"), and the key that names it.
import type { ModuleModel } from './model.js';

export type Target = 'browser' | 'node';
export type Env = 'development' | 'production';

export interface Variant {
  target: Target;
  env: Env;
  min: boolean;
  sourcemap: 'inline' | 'none';
}

/** `browser.development`, `browser.development.min`, `node.production.min`, ... */
export function variantKey(variant: Variant): string {
  let key = `${variant.target}.${variant.env}`;
  if (variant.min) key += '.min';
  if (variant.sourcemap === 'none' && variant.env === 'development') key += '.nomap';
  return key;
}

export function parseVariantKey(key: string): Variant | null {
  const [target, env, ...flags] = key.split('.');
  if ((target !== 'browser' && target !== 'node') || (env !== 'development' && env !== 'production')) return null;
  if (flags.some((flag) => flag !== 'min' && flag !== 'nomap')) return null;
  const variant: Variant = { target, env, min: flags.includes('min'), sourcemap: env === 'production' || flags.includes('nomap') ? 'none' : 'inline' };
  return variantKey(variant) === key ? variant : null;
}

export const developmentVariant = (target: Target): Variant => ({ target, env: 'development', min: false, sourcemap: 'inline' });
export const productionVariant = (target: Target): Variant => ({ target, env: 'production', min: true, sourcemap: 'none' });

/** The platform a target needs (README "Error codes" CONDITIONAL_NOT_FOUND). */
export const platformOf = (target: Target) => (target === 'browser' ? 'web' : 'node');

/** The variant kept built at all times: what `/state`, the preview and the push channel report. */
export const defaultVariant = (module: Pick<ModuleModel, 'platforms'>): Variant =>
  developmentVariant(module.platforms.includes('web') ? 'browser' : 'node');

/** The key of the variant the local CDN serves a left-out package's module at (README "The local CDN"). */
export const PRODUCTION_BROWSER_KEY = variantKey(productionVariant('browser'));
