/**
 * HTML templates as functions: `html` escapes every interpolated value unless it is
 * already `SafeHtml` (the result of another `html` call), so markup built from customer,
 * merchant or payment data cannot inject anything.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** Trusted markup written in this code base (CSS, scripts): never data. */
export const trusted = (text: string) => new SafeHtml(text);

/** JSON inside a <script type="application/json">: `<` escaped so the data cannot close the element. */
export const jsonScriptData = (value: unknown) => new SafeHtml(JSON.stringify(value).replace(/</g, '\\u003c'));

/** A page as Kassa serves its pages (the customer pages, the console): in its language, never indexed, its stylesheet under the page's nonce. */
export function htmlDocument(page: { lang: string; nonce: string; title: string; stylesheet: string; head?: SafeHtml; body: SafeHtml }): SafeHtml {
  return html`<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${page.title}</title>
${page.head}
<style nonce="${page.nonce}">${trusted(page.stylesheet)}</style>
</head>
<body>
${page.body}
</body>
</html>`;
}
