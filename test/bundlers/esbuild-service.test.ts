// esbuild's process dying under the service (it was seen to crash once, under load): the next
// build starts a new one, and a module edited afterwards builds again.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { ESBUILD_GOGC, ESBUILD_GOMEMLIMIT } from '../../src/bundlers/esbuild-service.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, PROJECT_DIR } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

/** The esbuild service processes started by this process. */
function esbuildChildren(): number[] {
  let pids: string;
  try {
    pids = execFileSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return pids
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--service');
      } catch {
        return false;
      }
    });
}

/** A workspace of one package with one module, `value = 1`. */
function oneModuleWorkspace(): string {
  return inlineWorkspace({ 'packages/app': { manifest: { name: '@kit/app', version: '1.0.0', exports: { './main': './main.ts' } }, files: { 'main.ts': 'export const value = 1;\n' } } });
}

describe("esbuild's process dying", function () {
  it('is replaced by a new one: the next build succeeds, and so does the edit after it', async function () {
    const root = oneModuleWorkspace();
    const service = await serve(root);
    try {
      expect((await service.get('/m/@kit/app@1.0.0/modules/main')).text).to.include('value = 1');
      const before = esbuildChildren();
      expect(before, 'an esbuild service process to stop').to.not.be.empty;
      for (const pid of before) process.kill(pid, 'SIGKILL');
      await waitFor(() => esbuildChildren().every((pid) => !before.includes(pid)) || undefined, { what: 'the esbuild process to end' });
      fs.writeFileSync(path.join(root, 'packages/app/main.ts'), 'export const value = 2;\n');
      const answer = await service.get('/m/@kit/app@1.0.0/modules/main');
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.text).to.include('value = 2');
      expect((await service.get('/m/@kit/app@1.0.0/modules/main?env=production')).status).to.equal(200);
    } finally {
      await service.close();
    }
  });
});

describe("esbuild's process and Go's collector", function () {
  // The tests run without a GOGC or GOMEMLIMIT of their own.
  it('runs with GOGC=400 and a soft memory limit when the environment sets neither (README "Performance")', async function () {
    if (process.platform !== 'linux') this.skip();
    const root = oneModuleWorkspace();
    const service = await serve(root);
    try {
      expect((await service.get('/m/@kit/app@1.0.0/modules/main')).status).to.equal(200);
      const children = esbuildChildren();
      expect(children, 'an esbuild service process').to.not.be.empty;
      for (const pid of children) {
        const environment = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        expect(environment).to.include(`GOGC=${ESBUILD_GOGC}`);
        expect(environment).to.include(`GOMEMLIMIT=${ESBUILD_GOMEMLIMIT}`);
      }
    } finally {
      await service.close();
    }
  });

  it("leaves both alone when the user set either: the user's setting wins", () => {
    const module = JSON.stringify(pathToFileURL(path.join(PROJECT_DIR, 'dist/bundlers/esbuild-service.js')).href);
    const script = `await import(${module}); console.log(JSON.stringify([process.env.GOGC ?? null, process.env.GOMEMLIMIT ?? null]));`;
    const run = (env: Record<string, string>) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '--eval', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' }));
    expect(run({}), 'neither set').to.deep.equal([ESBUILD_GOGC, ESBUILD_GOMEMLIMIT]);
    expect(run({ GOGC: '100' }), 'GOGC set').to.deep.equal(['100', null]);
    expect(run({ GOMEMLIMIT: '2GiB' }), 'GOMEMLIMIT set').to.deep.equal([null, '2GiB']);
  });
});
