// TODO(issue): `core dist`, written in its own issue.
export const DIST_HELP = 'Usage: core dist\n';
export async function distCommand(_args: string[]): Promise<number> {
  process.stderr.write('core dist: not available in this build\n');
  return 1;
}
