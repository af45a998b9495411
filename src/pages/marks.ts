/**
 * The card brands' marks and Kassa's favicon, drawn here as inline SVG (no image from a CDN or
 * another site, so the pages' CSP stays `default-src 'none'`). Each mark is the brand's name or
 * symbol in its own colours on a rounded badge, as the schemes allow merchants to show
 * acceptance; the brand's name is always in the text beside or behind it, so the marks are
 * decorative (`aria-hidden`).
 */
import { trusted, type SafeHtml } from '../lib/html.ts';
import type { CardBrand } from '../ground/card-brand.ts';
import type { OfferedMethod } from '../ground/payment-method.ts';

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

/** The methods a landing page offers: their names in their own colours, or a plain symbol where the method is no brand (a card, a bank transfer). */
const methodDrawings: Record<OfferedMethod, string> = {
  card: badge(
    '#fff',
    `<rect x="9" y="6" width="30" height="19" rx="3" fill="#4a5568"/><rect x="9" y="10" width="30" height="4" fill="#1a202c"/><rect x="13" y="18" width="10" height="3" rx="1" fill="#e2e8f0"/>`,
  ),
  walletpay: badge('#000', word('Pay', '#fff', 13), '#000'),
  ideal: badge('#fff', word('iDEAL', '#cc0066', 12)),
  paypal: badge('#fff', word('Pay<tspan fill="#009cde">Pal</tspan>', '#003087', 11)),
  klarna: badge('#ffb3c7', word('Klarna.', '#0b051d', 11), '#ffb3c7'),
  banktransfer: badge(
    '#fff',
    `<path d="M24 5 11 11v2h26v-2z" fill="#4a5568"/><rect x="13" y="14" width="3" height="8" fill="#4a5568"/><rect x="19" y="14" width="3" height="8" fill="#4a5568"/><rect x="26" y="14" width="3" height="8" fill="#4a5568"/><rect x="32" y="14" width="3" height="8" fill="#4a5568"/><rect x="11" y="23" width="26" height="2.5" fill="#4a5568"/>`,
  ),
};

/** A method's mark on the landing page's button, beside its name. */
export const methodMark = (method: OfferedMethod): SafeHtml =>
  trusted(`<svg class="mark" viewBox="0 0 48 30" width="48" height="30" aria-hidden="true" focusable="false">${methodDrawings[method]}</svg>`);

/** Kassa's favicon: a "K" on the pages' accent colour. */
export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1a56b8"/><path d="M10 7h4v7.2L20.2 7H25l-7 8 7.4 10h-4.9l-5.3-7.3L14 19v6h-4z" fill="#fff"/></svg>`;
