/** The name the development extension registers under, and the specifier that loads it. */
export const DEVELOPMENT_EXTENSION = '@core-js/packages/development';
