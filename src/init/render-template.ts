// The template workspace (template/ of this package) made into a new workspace: the name of
// the directory replaces the template's name everywhere, the service's version goes into the
// devDependency, and `gitignore` becomes `.gitignore` (npm leaves `.gitignore` files out of a
// published package, so the template cannot ship one under its real name).

export interface TemplateFile {
  /** Relative to the template or the new workspace, forward slashes. */
  path: string;
  text: string;
}

/** The name the template's files use, chosen to be a valid package scope and element name prefix. */
export const TEMPLATE_NAME = 'core-starter';
/** Stands for the version of @core-js/packages in the template's root package.json. */
export const TEMPLATE_VERSION = '0.0.0-core-version';

const RENAMED: Readonly<Record<string, string>> = { gitignore: '.gitignore' };

/**
 * A name for the workspace from its directory name, usable as an npm scope (`@<name>/app`)
 * and as the prefix of a custom element name (`<name>-greeting`): lower case letters, digits
 * and hyphens, starting with a letter.
 */
export function workspaceName(directoryName: string): string {
  const name = transliterate(directoryName)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  return name === '' ? 'my-workspace' : name;
}

// Letters with marks lose them (ü -> u, é -> e) by Unicode decomposition, and a few letters
// that do not decompose are spelled in Latin letters; what is left outside a-z and 0-9
// becomes a hyphen, so "ünïcode" names @unicode/app, never @n-code.
const SPELLED: Readonly<Record<string, string>> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

export function transliterate(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßæœøłđðþı]/giu, (letter) => {
      const spelled = SPELLED[letter.toLowerCase()] ?? letter;
      return letter === letter.toLowerCase() ? spelled : spelled.toUpperCase();
    });
}

export function renderTemplate(files: readonly TemplateFile[], values: { name: string; version: string }): TemplateFile[] {
  return files.map((file) => {
    const base = file.path.split('/').pop()!;
    const renamed = RENAMED[base] ? `${file.path.slice(0, -base.length)}${RENAMED[base]}` : file.path;
    return {
      path: renamed.split(TEMPLATE_NAME).join(values.name),
      text: file.text.split(TEMPLATE_NAME).join(values.name).split(TEMPLATE_VERSION).join(values.version),
    };
  });
}
