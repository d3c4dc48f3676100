// Where `core dist` puts each output, relative to the output directory. The layout mirrors
// the `/m/` addresses (README "Addresses", README "Distribution: core dist") with file extensions added, so the relative asset
// addresses compiled into code and stylesheets (`../assets/<subpath>/<file>`) resolve the
// same way from the written files as from the service.
import type { ModuleModel } from '../workspace/model.js';

type Located = Pick<ModuleModel, 'package' | 'version' | 'subpath'>;

const root = (module: Located): string => `${module.package}@${module.version}`;

/** `<package>@<version>/modules/<subpath>.js` */
export const codePath = (module: Located): string => `${root(module)}/modules/${module.subpath}.js`;

/** `<package>@<version>/styles/<subpath>.css` */
export const stylesPath = (module: Located): string => `${root(module)}/styles/${module.subpath}.css`;

/** `<package>@<version>/assets/<subpath>/<file>` */
export const assetPath = (module: Located, file: string): string => `${root(module)}/assets/${module.subpath}/${file}`;

/** The manifest of the output directory, beside the package directories. */
export const DISTRIBUTION_MANIFEST = 'core-distribution.json';

/**
 * An output path as an import map address. Import map addresses resolve against the URL of
 * the page that holds the map, so `./` makes them work for a page at the output directory's root.
 */
export const importMapAddress = (path: string): string => `./${path}`;
