#!/usr/bin/env node
// The `kimops` executable (package.json "bin"). In the package (`npm pack`: dist/ and the shipped files, no
// TypeScript) it runs the compiled dist/cli/kimops.js and never loads tsx. In a checkout, where cli/kimops.ts sits
// beside it, it runs the sources through tsx's loader, so `npx kimops …` needs no build step and never runs a
// dist/ older than the code. docs/release.md.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const sources = new URL('./kimops.ts', import.meta.url);
let entry = new URL('../dist/cli/kimops.js', import.meta.url);
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = sources;
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
