/**
 * Redoc's standalone bundle (Redoc, React and what they need, in one file) as the reference page
 * serves it. It is made at build time (scripts/build.mjs calls `writeRedocBundle` into dist/), so a
 * production install carries this one file and not the redoc package and its dependencies; while
 * developing (src/ through tsx) it is made from the package at start. Its one outside address, the
 * vendor's logo in the sidebar credit, becomes a local image: the page's CSP would refuse it, and
 * Kassa's pages fetch nothing from elsewhere (docs/architecture.md "contract/").
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const BUNDLE_FILE = 'redoc.standalone.js';
const VENDOR_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
/** A plain mark in the credit's place (img-src allows `data:`). */
const LOCAL_LOGO = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#888"/></svg>')}`;

function fromPackage(): string {
  const bundle = fs.readFileSync(createRequire(import.meta.url).resolve(`redoc/bundles/${BUNDLE_FILE}`), 'utf8');
  if (!bundle.includes(VENDOR_LOGO)) throw new Error(`Redoc's bundle no longer names ${VENDOR_LOGO}: check what it fetches from elsewhere`);
  return bundle.replaceAll(VENDOR_LOGO, LOCAL_LOGO);
}

/** Writes the bundle into `directory` (the build's dist/contract/). */
export function writeRedocBundle(directory: string): void {
  fs.writeFileSync(path.join(directory, BUNDLE_FILE), fromPackage());
}

/** The bundle: the build's copy beside this module, else made from the package (development). */
export function readRedocBundle(): Buffer {
  const built = new URL(BUNDLE_FILE, import.meta.url);
  return fs.existsSync(built) ? fs.readFileSync(built) : Buffer.from(fromPackage());
}
