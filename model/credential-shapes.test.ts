import { describe, expect, it } from 'vitest';
import { cutCredentialShapes } from './credential-shapes.js';

// Every shape is tested through the log's redactCredentials (adapters/log/redact.test.ts); here, that the cut alone
// works on what kimops shows rather than logs: a Runtime condition's message, a source's error.
describe('cutCredentialShapes', () => {
  it('cuts a credential a message quotes, and nothing else', () => {
    expect(cutCredentialShapes('refused: {"token":"abc.def"} at https://u:p@host/x')).toBe(
      'refused: {"token":"[redacted]"} at https://[redacted]@host/x',
    );
    const words = 'kubeconfig Secret kubeconfig-abc rotated; token rotation at 60 %';
    expect(cutCredentialShapes(words)).toBe(words);
  });
});
