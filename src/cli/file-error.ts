// A file the command line could not read or write, told by its error code: Node's own text
// ("ENOENT: no such file or directory, open '...'") repeats the path and the code.
const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
};

export function describeFileError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return (code && FILE_ERRORS[code]) ?? (code ? `error ${code}` : String(error));
}
