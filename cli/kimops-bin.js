#!/usr/bin/env node
// The `kimops` executable (package.json "bin"): kimops is TypeScript, run through tsx's loader, so
// `npx kimops …` and an installed bin link work without a build step.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./kimops.ts');
process.exitCode = await main(process.argv.slice(2));
