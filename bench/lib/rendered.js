// When the generated page-load app has rendered: every element marked, and the last one with its
// stylesheet's colour (what each page-load measure waits for, in the page, by page.waitForFunction).
export function renderedCheck(app) {
  return [
    ({ elements, lastTag, lastColor }) => {
      if (document.querySelectorAll('[data-rendered]').length !== elements) return false;
      const last = document.querySelector(lastTag);
      return last !== null && getComputedStyle(last).color === lastColor;
    },
    { elements: app.elements, lastTag: app.lastTag, lastColor: app.lastColor },
  ];
}
