#!/usr/bin/env node
// The `kassa` admin command. Kassa is TypeScript run through tsx, like `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/kassa.ts');
