// The page of the workspace: a custom element built from web standards alone (Custom
// Elements, Shadow DOM, DOM events), no framework. The preview imports this module and
// calls nothing, so its top-level code puts the element on the page.

export class GreetingElement extends HTMLElement {
  static observedAttributes = ['name'];

  readonly #root = this.attachShadow({ mode: 'open' });
  #clicks = 0;

  connectedCallback(): void {
    this.#render();
  }

  attributeChangedCallback(): void {
    this.#render();
  }

  #render(): void {
    const heading = document.createElement('h1');
    heading.textContent = `Hello, ${this.getAttribute('name') ?? 'world'}!`;
    const button = document.createElement('button');
    button.type = 'button';
    const label = () => `Clicked ${this.#clicks} ${this.#clicks === 1 ? 'time' : 'times'}`;
    button.textContent = label();
    button.addEventListener('click', () => {
      this.#clicks += 1;
      button.textContent = label();
    });
    this.#root.replaceChildren(heading, button);
  }
}

// Defined once, even if the module is evaluated again on the same page.
if (!customElements.get('core-starter-greeting')) customElements.define('core-starter-greeting', GreetingElement);

if (!document.querySelector('core-starter-greeting')) {
  const greeting = document.createElement('core-starter-greeting');
  greeting.setAttribute('name', 'core-starter');
  document.body.append(greeting);
}
