// Assertions on the error answers of README "Error codes": the status, a JSON body with the code, a
// message naming what was asked, and `diagnostics` exactly when a build is the cause.
import { expect } from 'chai';
import type { Answer } from './http.js';
import type { Diagnostic } from '../../src/workspace/diagnostics.js';
import { DIAGNOSTIC_KINDS, ERROR_CODES, type ErrorCode } from '../../src/codes.js';

export interface ErrorBodyShape {
  code: string;
  message: string;
  remedy: string;
  diagnostics?: Diagnostic[];
}

export interface ExpectedError {
  status: number;
  code: string;
  /** Texts the message must name (what was asked: a package, a path, a parameter...). */
  mentions?: string[];
  /** A build is the cause: `diagnostics` is a non-empty list. Otherwise it is absent. */
  diagnostics?: boolean;
}

export function expectError(answer: Answer, expected: ExpectedError): ErrorBodyShape {
  const where = `${expected.code} answer (got ${answer.status}: ${answer.text.slice(0, 300)})`;
  expect(answer.status, where).to.equal(expected.status);
  expect(answer.headers['content-type'], where).to.match(/^application\/json\b/);
  const body = answer.json<ErrorBodyShape>();
  expect(body.code, where).to.equal(expected.code);
  expect(body.message, where).to.be.a('string').that.is.not.empty;
  expect(body.remedy, where).to.equal(ERROR_CODES[expected.code as ErrorCode].remedy);
  for (const text of expected.mentions ?? []) expect(body.message, where).to.include(text);
  if (expected.diagnostics) {
    expect(body.diagnostics, where).to.be.an('array').that.is.not.empty;
    for (const diagnostic of body.diagnostics!) expectDiagnosticShape(diagnostic);
  } else {
    expect(body, where).not.to.have.property('diagnostics');
  }
  return body;
}

/** `{kind, message, file?, line?, column?}`, `file` relative to the workspace, line/column from 1. */
export function expectDiagnosticShape(diagnostic: Diagnostic): void {
  const errorsOfModules = Object.entries(DIAGNOSTIC_KINDS).filter(([, entry]) => entry.severity === 'error' && entry.scope === 'module').map(([kind]) => kind);
  expect(diagnostic.kind).to.be.oneOf(errorsOfModules);
  expect(diagnostic.message).to.be.a('string').that.is.not.empty;
  if (diagnostic.file !== undefined) {
    expect(diagnostic.file, 'file relative to the workspace').not.to.match(/^\/|^[A-Za-z]:|\\|(^|\/)\.\.(\/|$)/);
  }
  if (diagnostic.line !== undefined) expect(diagnostic.line).to.be.a('number').and.at.least(1);
  if (diagnostic.column !== undefined) expect(diagnostic.column).to.be.a('number').and.at.least(1);
}

/** The one diagnostic of `kind` in `diagnostics`, asserted present. */
export function findDiagnostic(diagnostics: readonly Diagnostic[] | undefined, kind: string): Diagnostic {
  const found = (diagnostics ?? []).find((d) => d.kind === kind);
  expect(found, `a ${kind} diagnostic among ${JSON.stringify(diagnostics)}`).to.not.equal(undefined);
  return found!;
}
