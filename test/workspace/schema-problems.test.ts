// A schema's errors as problems of members, worded by a manifest's table (src/workspace/schema-problems.ts).
import { expect } from 'chai';
import { isRefused, schemaProblems, wordProblems, type SchemaError, type SchemaValidator } from '../../src/workspace/schema-problems.js';

/** A validator that reports `errors`, as ajv's do. */
const reporting = (errors: SchemaError[]): SchemaValidator => Object.assign(() => false, { errors });
const error = (instancePath: string, schemaPath: string, keyword: string, params: Record<string, unknown> = {}): SchemaError => ({ instancePath, schemaPath, keyword, params });

describe('schemaProblems', () => {
  it('has none for a valid manifest', () => {
    expect(schemaProblems(Object.assign(() => true, { errors: null }), {})).to.deep.equal([]);
  });

  it('places a missing member and a refused key at their own path, pointers decoded', () => {
    const problems = schemaProblems(
      reporting([error('', '#/required', 'required', { missingProperty: 'name' }), error('/define', '#/properties/define/propertyNames', 'propertyNames', { propertyName: 'a b' }), error('/exports/.~1a~0b', '#/x', 'type')]),
      {},
    );
    expect(problems).to.deep.equal([
      { path: ['name'], keyword: 'required' },
      { path: ['define', 'a b'], keyword: 'propertyNames' },
      { path: ['exports', './a~b'], keyword: 'type' },
    ]);
  });

  it('keeps the errors of the one anyOf branch of the value\'s type, else the anyOf itself', () => {
    const branches = (path: string, second: SchemaError) => [error(path, '#/anyOf/0/type', 'type'), second, error(path, '#/anyOf', 'anyOf')];
    expect(schemaProblems(reporting(branches('/b', error('/b/specifier', '#/anyOf/1/properties/specifier/minLength', 'minLength'))), {})).to.deep.equal([{ path: ['b', 'specifier'], keyword: 'minLength' }]);
    expect(schemaProblems(reporting(branches('/b', error('/b', '#/anyOf/1/type', 'type'))), {})).to.deep.equal([{ path: ['b'], keyword: 'anyOf' }]);
  });
});

describe('wordProblems', () => {
  const messages = [
    { at: 'bundlers', message: () => 'bundlers must be an object' },
    { at: 'bundlers/*', message: (value: unknown, [name]: string[]) => `bundlers["${name}"] is ${JSON.stringify(value)}` },
    { at: 'bundlers/*', keyword: 'minLength', message: (_: unknown, [name]: string[]) => `bundlers["${name}"] is empty` },
    { at: 'told', message: () => null },
  ];
  const data = { bundlers: { a: { specifier: 1 }, b: '' } };

  it('words a problem by the nearest member with a message, once, with the value there', () => {
    const worded = wordProblems(data, [{ path: ['bundlers', 'a', 'specifier'], keyword: 'type' }, { path: ['bundlers', 'a'], keyword: 'type' }, { path: ['bundlers', 'b'], keyword: 'minLength' }], messages);
    expect(worded).to.deep.equal([
      { path: ['bundlers', 'a'], message: 'bundlers["a"] is {"specifier":1}' },
      { path: ['bundlers', 'b'], message: 'bundlers["b"] is empty' },
    ]);
    expect(isRefused(worded, 'bundlers', 'a')).to.equal(true);
    expect(isRefused(worded, 'bundlers', 'c')).to.equal(false);
  });

  it('tells a problem no message names by its keyword, and leaves out one told elsewhere', () => {
    expect(wordProblems(data, [{ path: ['other', 'x'], keyword: 'maxLength' }, { path: ['told'], keyword: 'type' }], messages)).to.deep.equal([{ path: ['other', 'x'], message: 'other.x breaks the schema\'s "maxLength"' }]);
  });
});
