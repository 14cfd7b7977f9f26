import { register } from 'tsx/esm/api';
register();
if (process.env.NOSM) process.setSourceMapsEnabled(false);
await import('../cli/apply.ts');
