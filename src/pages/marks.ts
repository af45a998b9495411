/**
 * The card brands' marks and Kassa's favicon, drawn here as inline SVG (no image from a CDN or
 * another site, so the pages' CSP stays `default-src 'none'`). Each mark is the brand's name or
 * symbol in its own colours on a rounded badge, as the schemes allow merchants to show
 * acceptance; the brand's name is always in the text beside or behind it, so the marks are
 * decorative (`aria-hidden`).
 */
import { trusted, type SafeHtml } from '../lib/html.ts';
import type { CardBrand } from '../ground/card-brand.ts';

const badge = (fill: string, inner: string, stroke = '#c5cad3') => `<rect x=".5" y=".5" width="47" height="29" rx="4" fill="${fill}" stroke="${stroke}"/>${inner}`;
const word = (text: string, fill: string, size: number, extra = '') =>
  `<text x="24" y="${15 + size * 0.36}" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-weight="700" font-size="${size}" fill="${fill}"${extra}>${text}</text>`;
// Two overlapping circles (their lens in the mixed colour): the symbol Mastercard and Maestro share.
const circles = (left: string, right: string, lens: string) =>
  `<circle cx="19" cy="15" r="9" fill="${left}"/><circle cx="29" cy="15" r="9" fill="${right}"/><path d="M24 7.52A9 9 0 0 1 24 22.48A9 9 0 0 1 24 7.52Z" fill="${lens}"/>`;

const drawings: Record<CardBrand, string> = {
  visa: badge('#fff', word('VISA', '#1a1f71', 14, ' font-style="italic" letter-spacing=".5"')),
  mastercard: badge('#fff', circles('#eb001b', '#f79e1b', '#ff5f00')),
  maestro: badge('#fff', circles('#eb001b', '#00a2e5', '#7375cf')),
  amex: badge('#016fd0', word('AMEX', '#fff', 12, ' letter-spacing=".5"'), '#016fd0'),
  bcmc: badge(
    '#fff',
    `${word('Bancontact', '#005498', 8, ' textLength="38" lengthAdjust="spacingAndGlyphs"')}<rect x="8" y="21" width="16" height="2.5" fill="#1e3764"/><rect x="24" y="21" width="16" height="2.5" fill="#ffd800"/>`,
  ),
};

/** A brand's mark; `data-mark` lets the card page's script show which brand the typed number is. */
export const brandMark = (brand: CardBrand): SafeHtml =>
  trusted(`<svg class="mark" data-mark="${brand}" viewBox="0 0 48 30" width="48" height="30" aria-hidden="true" focusable="false">${drawings[brand]}</svg>`);

/** Kassa's favicon: a "K" on the pages' accent colour. */
export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1a56b8"/><path d="M10 7h4v7.2L20.2 7H25l-7 8 7.4 10h-4.9l-5.3-7.3L14 19v6h-4z" fill="#fff"/></svg>`;
