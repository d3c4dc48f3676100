// The development extension (`@core-js/packages/development`), loaded through
// CORE_SERVICE_EXTENSIONS: the preview page and its import map, the runtime under `/u/`,
// and the stylesheet push channel `/events`.
import { randomUUID } from 'node:crypto';
import type { ServiceExtension } from '../extension.js';
import { registerEventsChannel } from './channel.js';
import { DEVELOPMENT_EXTENSION } from './name.js';
import { registerPreviewRoutes } from './routes.js';

const development: ServiceExtension = {
  name: DEVELOPMENT_EXTENSION,
  setup(host) {
    // One id per run of the service: written into each preview page and said first on each
    // `/events` connection, so a page tells a restart it never saw close (README "Preview and
    // stylesheet push").
    const instance = randomUUID();
    registerPreviewRoutes(host, instance);
    registerEventsChannel(host, instance);
  },
};

export default development;
export { derivePreview, type Preview, type PreviewModule } from './preview.js';
