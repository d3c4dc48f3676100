// A command's options read by parseArgs, a wrong command line told in one line (src/cli/command-line.ts).
import { expect } from 'chai';
import { parseCommandLine } from '../../src/cli/command-line.js';
import { UsageError } from '../../src/cli/usage-error.js';

const OPTIONS = { port: { type: 'string' }, dev: { type: 'boolean' }, 'allowed-host': { type: 'string', multiple: true } } as const;

const problem = (args: string[], allowPositionals = true): string => {
  try {
    parseCommandLine({ args, options: OPTIONS, allowPositionals, strict: true });
  } catch (error) {
    expect(error).to.be.instanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error(`${args.join(' ')} was accepted`);
};

describe('parseCommandLine', () => {
  it('reads options and arguments as parseArgs does', () => {
    const parsed = parseCommandLine({ args: ['dir', '--port', '80', '--dev', '--allowed-host=a', '--allowed-host', 'b'], options: OPTIONS, allowPositionals: true, strict: true });
    expect(parsed.values).to.deep.equal({ port: '80', dev: true, 'allowed-host': ['a', 'b'] });
    expect(parsed.positionals).to.deep.equal(['dir']);
  });

  it('names an unknown option, long or short', () => {
    expect(problem(['--port', '0', '--bogus'])).to.equal('unknown option --bogus');
    expect(problem(['-x'])).to.equal('unknown option -x');
    expect(problem(['--__proto__'])).to.equal('unknown option --__proto__');
  });

  it('says an option needs a value when none follows, or the next option does', () => {
    expect(problem(['--port'])).to.equal('--port needs a value');
    expect(problem(['--port', '--dev'])).to.equal('--port needs a value');
  });

  it('says a switch takes no value', () => {
    expect(problem(['--dev=yes'])).to.equal('--dev takes no value');
  });

  it('names an argument a command without arguments does not take', () => {
    expect(problem(['extra'], false)).to.equal('unexpected argument extra');
  });
});
