// The development extension (`@core-js/packages/development`), loaded through
// CORE_SERVICE_EXTENSIONS: the preview page and its import map, the runtime under `/u/`,
// and the stylesheet push channel `/events`.
import type { ServiceExtension } from '../extension.js';
import { registerEventsChannel } from './channel.js';
import { DEVELOPMENT_EXTENSION } from './name.js';
import { registerPreviewRoutes } from './routes.js';

const development: ServiceExtension = {
  name: DEVELOPMENT_EXTENSION,
  setup(host) {
    registerPreviewRoutes(host);
    registerEventsChannel(host);
  },
};

export default development;
export { derivePreview, type Preview, type PreviewModule } from './preview.js';
