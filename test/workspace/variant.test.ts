// Variants: the ways of compiling a module, and the keys that name them in the state.
import { expect } from 'chai';
import { defaultVariant, developmentVariant, parseVariantKey, platformOf, productionVariant, variantKey, type Variant } from '../../src/workspace/variant.js';
import { parseOutputQuery } from '../../src/workspace/query.js';

// Every variant a query can ask for.
const QUERIES = ['target', 'env', 'min', 'sourcemap'].reduce<string[]>(
  (queries, name) => {
    const values = { target: ['browser', 'node'], env: ['development', 'production'], min: ['false', 'true'], sourcemap: ['inline', 'none'] }[name]!;
    return queries.flatMap((query) => values.map((value) => `${query}&${name}=${value}`));
  },
  [''],
);
const VARIANTS: Variant[] = QUERIES.flatMap((query) => {
  const result = parseOutputQuery(new URLSearchParams(query));
  return result.ok ? [result.variant] : [];
});

describe('variantKey', () => {
  it('names the development and production variants', () => {
    expect(variantKey(developmentVariant('browser'))).to.equal('browser.development');
    expect(variantKey(productionVariant('browser'))).to.equal('browser.production.min');
    expect(variantKey(productionVariant('node'))).to.equal('node.production.min');
    expect(variantKey({ target: 'browser', env: 'development', min: true, sourcemap: 'none' })).to.equal('browser.development.min.nomap');
  });

  it('gives every variant a query can ask for its own key', () => {
    expect(VARIANTS).to.have.length(10);
    expect(new Set(VARIANTS.map(variantKey)).size).to.equal(VARIANTS.length);
  });
});

describe('parseVariantKey', () => {
  it('reads back every key variantKey writes', () => {
    for (const variant of VARIANTS) expect(parseVariantKey(variantKey(variant)), variantKey(variant)).to.deep.equal(variant);
  });

  it('is null for keys variantKey never writes', () => {
    for (const key of ['', 'browser', 'deno.development', 'browser.test', 'browser.development.fast', 'browser.development.nomap.min', 'browser.production.min.nomap', 'browser.development.min.min']) {
      expect(parseVariantKey(key), key).to.equal(null);
    }
  });
});

describe('defaultVariant', () => {
  it('is the browser development variant for web modules, the node one for node-only modules', () => {
    expect(defaultVariant({ platforms: ['web'] })).to.deep.equal(developmentVariant('browser'));
    expect(defaultVariant({ platforms: ['node', 'web'] })).to.deep.equal(developmentVariant('browser'));
    expect(defaultVariant({ platforms: ['node'] })).to.deep.equal(developmentVariant('node'));
  });
});

describe('platformOf', () => {
  it('maps browser to web and node to node', () => {
    expect(platformOf('browser')).to.equal('web');
    expect(platformOf('node')).to.equal('node');
  });
});
