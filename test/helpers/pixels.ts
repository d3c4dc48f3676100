// Images on a page judged by what the page draws (README "Preview and stylesheet push": an asset
// replaced while a page is open): a square SVG of one colour, and the colour of its pixel as the
// page decodes the image at an address (its memory cache included), as an element showing it would.
import type { Page } from 'playwright-core';

/** A 10 x 10 SVG of one `fill`. */
export const square = (fill: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="${fill}"/></svg>`;

/** The colours `colourAt` answers for `square('red')`, `square('blue')` and `square('green')`. */
export const RED = '255,0,0,255';
export const BLUE = '0,0,255,255';
export const GREEN = '0,128,0,255';

/** The address the computed `background-image` of the element `selector` names, if any. */
export const backgroundAddress = (page: Page, selector: string): Promise<string | undefined> =>
  page.evaluate((selector) => /url\("([^"]+)"\)/.exec(getComputedStyle(document.querySelector(selector)!).backgroundImage)?.[1], selector);

/** The colour of the middle pixel of the image at each address, `(no image)` for none. */
export function colourAt<Key extends string>(page: Page, addresses: Record<Key, string | undefined>): Promise<Record<Key, string>> {
  return page.evaluate(async (addresses) => {
    const colour = async (address: string | undefined) => {
      if (!address) return '(no image)';
      const image = new Image();
      image.src = address;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = 1;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 5, 5, 1, 1, 0, 0, 1, 1);
      return [...context.getImageData(0, 0, 1, 1).data].join(',');
    };
    const entries = await Promise.all(Object.entries(addresses).map(async ([key, address]) => [key, await colour(address as string | undefined)] as const));
    return Object.fromEntries(entries);
  }, addresses as Record<string, string | undefined>) as Promise<Record<Key, string>>;
}
