/** The wallet vendor's root certificate that live token signatures must chain to (attribution in roots/README.md). */
import { readFileSync } from 'node:fs';

export const walletVendorRootPem: string = readFileSync(new URL('./roots/AppleRootCA-G3.pem', import.meta.url), 'utf8');
