// The programmatic API (README "The event log, replay and state subscription"): start the service in-process, watch its state.
//
//   import { startService } from '@core-js/packages';
//   const service = await startService({ root: 'path/to/workspace', port: 0 });
//   service.state$.subscribe((state) => ...);
//   console.log(await service.report());
//   await service.close();
export { startService, ListenError, type Service, type ServiceOptions } from './service.js';
export type { ServiceExtension, ExtensionHost } from './extension.js';
export type { CoreEvent, Fact, EventType } from './store/events.js';
export type { ServiceState } from './store/state.js';
export { selectReport, type Report, type ModuleReport } from './store/selectors.js';
export type { Diagnostic, DiagnosticKind } from './workspace/diagnostics.js';
export type { Bundler, BundleTarget, BundleResult, BundlerOptions, CreateBundler } from './bundlers/types.js';
