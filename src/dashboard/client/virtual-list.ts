// A list of fixed-height rows that only draws the rows in view: a log of 100,000 events
// scrolls as lightly as one of ten.
import { h } from './dom.js';

export class VirtualList {
  readonly element: HTMLElement;
  private readonly spacer = h('div', { class: 'spacer' });
  private count = 0;
  current = -1;

  constructor(
    private readonly rowHeight: number,
    private readonly drawRow: (index: number) => HTMLElement,
    label: string,
    onKey: (event: KeyboardEvent) => void,
  ) {
    this.element = h('div', { class: 'virtual', role: 'listbox', tabindex: '0', 'aria-label': label, onscroll: () => this.draw(), onkeydown: onKey }, this.spacer);
  }

  setCount(count: number): void {
    this.count = count;
    this.spacer.style.height = `${count * this.rowHeight}px`;
    this.draw();
  }

  /** Marks `index` current and scrolls it into view. */
  show(index: number): void {
    this.current = index;
    const top = index * this.rowHeight;
    const view = this.element.clientHeight || 400;
    if (top < this.element.scrollTop) this.element.scrollTop = top;
    else if (top + this.rowHeight > this.element.scrollTop + view) this.element.scrollTop = top + this.rowHeight - view;
    this.draw();
  }

  draw(): void {
    const view = this.element.clientHeight || 400;
    const first = Math.max(0, Math.floor(this.element.scrollTop / this.rowHeight) - 10);
    const last = Math.min(this.count, Math.ceil((this.element.scrollTop + view) / this.rowHeight) + 10);
    const rows: HTMLElement[] = [];
    for (let index = first; index < last; index += 1) {
      const row = this.drawRow(index);
      row.style.top = `${index * this.rowHeight}px`;
      row.style.height = `${this.rowHeight}px`;
      if (index === this.current) {
        row.classList.add('current');
        row.setAttribute('aria-selected', 'true');
        row.id = 'current-event';
      }
      rows.push(row);
    }
    this.spacer.replaceChildren(...rows);
    if (this.current >= 0) this.element.setAttribute('aria-activedescendant', 'current-event');
  }
}
