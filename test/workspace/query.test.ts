// The query of the `modules` and `styles` addresses, and of asset addresses.
import { expect } from 'chai';
import { DEVELOPMENT_QUERY, parseOutputQuery, PRODUCTION_QUERY } from '../../src/workspace/query.js';

const parse = (query: string) => parseOutputQuery(new URLSearchParams(query));
const refusal = (query: string) => {
  const result = parse(query);
  if (result.ok) throw new Error(`?${query} was accepted`);
  return result.message;
};

describe('parseOutputQuery', () => {
  it('takes the development defaults for an empty query', () => {
    expect(parse('')).to.deep.equal({ ok: true, variant: { target: 'browser', env: 'development', min: false, sourcemap: 'inline' } });
  });

  it('reads the development query spelled out, and a cache-busting token of any value', () => {
    expect(parse(DEVELOPMENT_QUERY)).to.deep.equal(parse(''));
    expect(parse(`${DEVELOPMENT_QUERY}&v=anything-at-all`)).to.deep.equal(parse(''));
  });

  it('defaults min and sourcemap to what production requires: ?env=production alone is production output', () => {
    const production = { ok: true, variant: { target: 'browser', env: 'production', min: true, sourcemap: 'none' } };
    expect(parse('env=production')).to.deep.equal(production);
    expect(parse(PRODUCTION_QUERY)).to.deep.equal(production);
  });

  it('reads the node target and development options that differ from the defaults', () => {
    expect(parse('target=node&min=true&sourcemap=none')).to.deep.equal({ ok: true, variant: { target: 'node', env: 'development', min: true, sourcemap: 'none' } });
  });

  it('refuses a parameter it does not know, naming the ones it does', () => {
    expect(refusal('minify=true')).to.equal('the query parameter "minify" is not supported; the parameters are target, format, env, min, sourcemap, types, css, v');
  });

  it('refuses a value outside the table, naming the allowed ones', () => {
    expect(refusal('target=deno')).to.equal('target=deno is not supported; target may be browser or node');
    expect(refusal('format=cjs')).to.contain('format may be esm');
    expect(refusal('env=test')).to.contain('env may be development or production');
    expect(refusal('min=1')).to.contain('min may be false or true');
    expect(refusal('sourcemap=external')).to.contain('sourcemap may be inline or none');
    expect(refusal('types=true')).to.contain('types may be false');
    expect(refusal('css=true')).to.contain('css may be false');
    expect(refusal('target=')).to.contain('target= is not supported');
  });

  it('refuses a parameter given twice, even with the same value', () => {
    expect(refusal('env=development&env=development')).to.equal('the query parameter "env" is given twice');
  });

  it('refuses production output that is not minified or carries a source map', () => {
    expect(refusal('env=production&min=false')).to.contain('env=production with min=false is not supported');
    expect(refusal('env=production&sourcemap=inline')).to.contain('env=production with sourcemap=inline is not supported');
  });
});

