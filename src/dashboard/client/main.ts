// The dashboard page's one element: a header with the two views, live and replay.
// `/` opens the live view; `#replay` the replay.
import { setAutoFreeze } from 'immer';
import { h } from './dom.js';
import { LiveView } from './live-view.js';
import { ReplayView } from './replay-view.js';

// As in the service: states are never mutated, and freezing each one costs more than a replay.
setAutoFreeze(false);

class CoreDashboard extends HTMLElement {
  connectedCallback(): void {
    const live = new LiveView();
    const replay = new ReplayView();
    const tabs = (['live', 'replay'] as const).map((name) =>
      h('a', { href: name === 'live' ? '#' : '#replay', class: 'tab', role: 'tab', dataset: { view: name } }, name === 'live' ? 'Live' : 'Replay'),
    );
    const show = () => {
      const name = location.hash === '#replay' ? 'replay' : 'live';
      live.element.hidden = name !== 'live';
      replay.element.hidden = name !== 'replay';
      for (const tab of tabs) tab.setAttribute('aria-selected', String(tab.dataset.view === name));
    };
    this.replaceChildren(
      h('header', { class: 'bar' }, h('span', { class: 'brand' }, h('b', null, 'core'), ' build dashboard'), h('nav', { role: 'tablist' }, tabs), h('span', { class: 'links' }, this.dataset.preview ? h('a', { href: this.dataset.preview, class: 'preview-link' }, 'preview') : null, h('a', { href: '/state' }, '/state'), h('a', { href: '/log' }, '/log'), h('a', { href: '/state/details' }, '/state/details'))),
      live.element,
      replay.element,
    );
    window.addEventListener('hashchange', show);
    document.addEventListener('keydown', (event) => {
      if (event.key === '/' && !(event.target instanceof HTMLInputElement) && !live.element.hidden) {
        event.preventDefault();
        live.focusSearch();
      }
    });
    show();
    live.start();
  }
}

customElements.define('core-dashboard', CoreDashboard);
