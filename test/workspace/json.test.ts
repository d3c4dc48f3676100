// JSON text to a value, or a MANIFEST_INVALID diagnostic at the line and column of the error.
import { expect } from 'chai';
import { describeType, isDeeperThan, isObject, MAX_MANIFEST_DEPTH, parseJson } from '../../src/workspace/json.js';

const where = (text: string) => {
  const result = parseJson(text, 'm.json');
  if (result.ok) throw new Error(`${JSON.stringify(text)} parsed`);
  expect(result.diagnostic).to.include({ kind: 'MANIFEST_INVALID', file: 'm.json' });
  expect(result.diagnostic.message).to.match(/^m\.json is not valid JSON: /);
  return [result.diagnostic.line, result.diagnostic.column];
};

/** `levels` objects within one another, as `{"a": {"a": ... 1}}`. */
const nested = (levels: number, open = '{"a": ', close = '}') => `${open.repeat(levels)}1${close.repeat(levels)}`;

describe('parseJson', () => {
  it(`refuses a manifest nested more than ${MAX_MANIFEST_DEPTH} levels deep (MANIFEST_INVALID), before anything walks it`, () => {
    expect(parseJson(nested(MAX_MANIFEST_DEPTH), 'm.json').ok).to.equal(true);
    expect(parseJson(nested(MAX_MANIFEST_DEPTH, '[', ']'), 'm.json').ok).to.equal(true);
    for (const text of [nested(MAX_MANIFEST_DEPTH + 1), nested(5_000), nested(5_000, '[', ']'), `{"exports": ${nested(5_000, '{"import": [', ']}')}}`]) {
      const result = parseJson(text, 'm.json');
      if (result.ok) throw new Error(`${text.slice(0, 40)}... parsed`);
      expect(result.diagnostic).to.include({ kind: 'MANIFEST_INVALID', file: 'm.json' });
      expect(result.diagnostic.message).to.include(`more than ${MAX_MANIFEST_DEPTH} levels deep`);
    }
  });

  it('measures nesting without recursion, however deep', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 200_000; level++) deep = level % 2 === 0 ? [deep] : { a: deep };
    expect(isDeeperThan(deep, MAX_MANIFEST_DEPTH)).to.equal(true);
    expect(isDeeperThan({ a: [1, { b: 2 }], c: 'd' }, 3)).to.equal(false);
    expect(isDeeperThan({ a: [1, { b: {} }] }, 3)).to.equal(true);
    expect(isDeeperThan('text', 0)).to.equal(false);
  });

  it('parses JSON, with or without a byte order mark', () => {
    expect(parseJson('{"a": [1, "b", null]}', 'm.json')).to.deep.equal({ ok: true, value: { a: [1, 'b', null] } });
    expect(parseJson('\ufeff{"a": 1}', 'm.json')).to.deep.equal({ ok: true, value: { a: 1 } });
  });

  it('points at the first error, whatever message the engine gives', () => {
    const cases: [string, [number, number]][] = [
      ['{\n  "a": 1,\n  "b": 2,\n}', [4, 1]], // trailing comma
      ['{\n  "a" 1\n}', [2, 7]], // missing colon
      ["{\n  'a': 1\n}", [2, 3]], // single quotes
      ['{"a": tru}', [1, 7]], // bad literal
      ['{"a": 1} x', [1, 10]], // text after the value
      ['{"a": "b\\q"}', [1, 10]], // bad escape
      ['{"a": "line\nbreak"}', [1, 12]], // raw newline in a string
      ['[1, 2', [1, 6]], // cut short
      ['{"a": "open', [1, 12]], // unterminated string
      ['', [1, 1]],
      ['   \n  ', [2, 3]],
    ];
    for (const [text, expected] of cases) expect(where(text), JSON.stringify(text)).to.deep.equal(expected);
  });

  it('counts columns after a byte order mark as an editor shows them', () => {
    expect(where('\ufeff{"a" 1}')).to.deep.equal([1, 6]);
  });
});

describe('isObject', () => {
  it('is true for plain objects only', () => {
    expect([{}, [], null, 'x', 1].map(isObject)).to.deep.equal([true, false, false, false, false]);
  });
});

describe('describeType', () => {
  it('names the JSON type of a value, and a member left out as missing', () => {
    expect([null, [], {}, 'x', 1, true, undefined].map(describeType)).to.deep.equal(['null', 'an array', 'an object', 'a string', 'a number', 'a boolean', 'missing']);
  });
});
