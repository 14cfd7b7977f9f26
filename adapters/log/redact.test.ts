import { describe, expect, it } from 'vitest';
import { redactCredentials } from './redact.js';

const JWT = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJlLXBhcnQ';

describe('redactCredentials', () => {
  it.each([
    ['a kubeconfig token field', `    token: ${JWT}`, '    token: [redacted]'],
    ['client key data', 'client-key-data: LS0tLS1CRUdJTiBSU0E=', 'client-key-data: [redacted]'],
    ['a JSON password', '{"password":"hunter22"}', '{"password":"[redacted]"}'],
    ['a bearer header', 'Authorization: Bearer abcdefgh12345678', 'Authorization: [redacted]'],
    ['a bearer value alone', 'sent Bearer abcdefgh12345678 to the API', 'sent Bearer [redacted] to the API'],
    [
      'user info in a git URL',
      'push to https://x-access-token:ghs_secret@github.com/acme/landscape.git failed',
      'push to https://[redacted]@github.com/acme/landscape.git failed',
    ],
    ['a ServiceAccount token', `401 with ${JWT}`, '401 with [redacted]'],
    ['a GitHub token', 'token ghp_0123456789abcdefghijABCDEFGHIJ is bad', 'token [redacted] is bad'],
    [
      'a PEM key',
      'key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nnext',
      'key:\n[redacted] PEM\nnext',
    ],
  ])('cuts %s', (_, text, expected) => {
    expect(redactCredentials(text)).toBe(expected);
  });

  it('cuts the exact values it is given, whatever their shape', () => {
    expect(redactCredentials('webhook secret s3cr3t-value in a message', ['s3cr3t-value'])).toBe(
      'webhook secret [redacted] in a message',
    );
  });

  it("leaves kimops's own words alone", () => {
    const lines = [
      'kubeconfig Secret kubeconfig-abc rotated',
      'the token rotation happens at 60 % of the expiration',
      'update c-1: #12 opened, await-review: update: needs 1 approval, has 0',
      'Basic',
    ];
    for (const line of lines) expect(redactCredentials(line)).toBe(line);
  });
});
