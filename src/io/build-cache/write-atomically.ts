// Every file of the build cache is written beside its place and renamed over it (README "The
// build cache"), so services sharing a cache never read a half-written file.
import crypto from 'node:crypto';
import fs from 'node:fs';

export async function writeAtomically(file: string, content: string | Uint8Array): Promise<void> {
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.promises.writeFile(temporary, content);
    await fs.promises.rename(temporary, file);
  } catch (error) {
    // A disk that filled up keeps what was written of it: nobody else would remove it for ten minutes.
    await fs.promises.rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
}

export const exists = (file: string): Promise<boolean> => fs.promises.stat(file).then(() => true, () => false);
