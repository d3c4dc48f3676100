// TODO(issue): `core init`, written in its own issue.
export const INIT_HELP = 'Usage: core init\n';
export async function initCommand(_args: string[]): Promise<number> {
  process.stderr.write('core init: not available in this build\n');
  return 1;
}
