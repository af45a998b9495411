/**
 * Serves the contract: the OpenAPI document at `{base_url}/openapi.json` and the reference page at
 * `PUBLIC_URL/docs` (Redoc, bundled at build time: every asset from Kassa itself, none from a CDN,
 * redoc-bundle.ts). The page has
 * its own Content-Security-Policy: Redoc builds its styles at run time and searches in a worker it
 * makes from a blob, which the customer pages' policy rightly refuses; nothing else is loosened.
 */
import type { FastifyInstance } from 'fastify';
import { DOCS_PATH, OPENAPI_PATH, openApiDocument } from './document.ts';
import { readRedocBundle } from './redoc-bundle.ts';

const redocBundle = readRedocBundle();

const DOCS_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Starts Redoc on the document and, once it has drawn the page, brings a problem type's section
 * (`#problem-<slug>`, the address a problem's `type` is explained at) into view: the browser's own
 * jump to the fragment happens before Redoc has drawn anything.
 */
const startScript = `'use strict';
(function () {
  var root = document.getElementById('redoc');
  Redoc.init(root.dataset.spec, { hideDownloadButton: false, expandResponses: '200', jsonSampleExpandLevel: 3 }, root, function () {
    var target = location.hash.indexOf('#problem-') === 0 && document.getElementById(location.hash.slice(1));
    if (target) (target.closest('[data-section-id]') || target).scrollIntoView();
  });
})();
`;

/** Relative addresses (`apiPrefix` without its leading slash): they hold behind a PUBLIC_URL with a path. */
const page = (apiPrefix: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kassa API reference</title>
</head>
<body>
<div id="redoc" data-spec="${apiPrefix.slice(1)}${OPENAPI_PATH}"></div>
<script src="docs/redoc.standalone.js"></script>
<script src="docs/start.js"></script>
</body>
</html>
`;

export async function contractRoutes(app: FastifyInstance, { publicUrl, apiPrefix }: { publicUrl: string; apiPrefix: string }) {
  const document = JSON.stringify(openApiDocument(publicUrl, apiPrefix));
  const html = page(apiPrefix);
  app.get(`${apiPrefix}${OPENAPI_PATH}`, (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
  app.get(DOCS_PATH, (_request, reply) => reply.header('Content-Security-Policy', DOCS_POLICY).type('text/html; charset=utf-8').send(html));
  app.get(`${DOCS_PATH}/redoc.standalone.js`, (_request, reply) => reply.type('text/javascript; charset=utf-8').send(redocBundle));
  app.get(`${DOCS_PATH}/start.js`, (_request, reply) => reply.type('text/javascript; charset=utf-8').send(startScript));
}
