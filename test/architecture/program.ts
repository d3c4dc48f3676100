// The compiler's own parse of a tsconfig's program, for the architecture checks (ARCHITECTURE.md
// "Layers"): what they read is what `tsc` compiles, not a second guess at the sources.
import { join, sep } from 'node:path';
import type { SourceFile } from 'typescript/unstable/ast';
import { API, type Checker } from 'typescript/unstable/sync';

export const toPosix = (path: string) => path.split(sep).join('/');

export interface Program {
  /** Every file of the program, as POSIX absolute paths. */
  readonly files: ReadonlySet<string>;
  sourceFile(file: string): SourceFile | undefined;
  /** The compiler's checker of the program: which declaration a name is. */
  readonly checker: Checker;
}

/** Runs `use` over the program of `dir/tsconfig.json`, and closes the compiler after. */
export function withProgram<T>(dir: string, use: (program: Program) => T): T {
  const api = new API({ cwd: dir });
  try {
    const [project] = api.updateSnapshot({ openProjects: [join(dir, 'tsconfig.json')] }).getProjects();
    if (!project) throw new Error(`${dir}/tsconfig.json opened no project`);
    const files = new Set(project.program.getSourceFileNames().map(toPosix));
    return use({ files, sourceFile: (file) => project.program.getSourceFile(file), checker: project.checker });
  } finally {
    api.close();
  }
}
