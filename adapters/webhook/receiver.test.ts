// The webhook receiver on loopback, spoken to as GitHub does: signed deliveries start a sync, everything
// else is answered and ignored, and nothing a client sends crashes it or leaks how it checks.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, startWebhookReceiver, type WebhookOutcome, type WebhookReceiver } from './receiver.js';

const SECRET = "It's a Secret to Everybody";
const SHA = 'a'.repeat(40);

let receiver: WebhookReceiver | undefined;
let pushes: string[] = [];
let outcomes: WebhookOutcome[] = [];

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  pushes = [];
  outcomes = [];
});

async function start(options: { branch?: string } = {}): Promise<WebhookReceiver> {
  receiver = await startWebhookReceiver({
    port: 0,
    secret: SECRET,
    ...options,
    onPush: (sha) => pushes.push(sha),
    log: (o) => outcomes.push(o),
  });
  return receiver;
}

function sign(body: string | Buffer, secret = SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

interface Delivery {
  event?: string;
  body?: string | Buffer;
  signature?: string | null;
  method?: string;
}

async function deliver(
  r: WebhookReceiver,
  {
    event = 'push',
    body = JSON.stringify({ ref: 'refs/heads/main', after: SHA }),
    signature,
    method = 'POST',
  }: Delivery = {},
) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  };
  if (event) headers['x-github-event'] = event;
  const sig = signature === undefined ? sign(body) : signature;
  if (sig !== null) headers['x-hub-signature-256'] = sig;
  const response = await fetch(r.url, { method, headers, ...(method === 'POST' && { body }) });
  return { status: response.status, text: await response.text() };
}

describe('startWebhookReceiver', () => {
  it('answers a correctly signed push to main with 202 and passes the pushed commit on', async () => {
    const r = await start();
    const answer = await deliver(r);
    expect(answer.status).toBe(202);
    expect(answer.text).toContain('sync requested');
    expect(pushes).toEqual([SHA]);
    expect(outcomes).toEqual([
      expect.objectContaining({
        status: 202,
        event: 'push',
        delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        sha: SHA,
      }),
    ]);
  });

  it('checks the signature over the raw bytes, not re-serialised JSON', async () => {
    const r = await start();
    const body = `{ "ref" : "refs/heads/main",\n  "after": "${SHA}" }`;
    expect((await deliver(r, { body })).status).toBe(202);
    expect(pushes).toEqual([SHA]);
  });

  it.each([
    [
      'a wrong secret',
      { signature: sign(JSON.stringify({ ref: 'refs/heads/main', after: SHA }), 'guess') },
      'does not match',
    ],
    [
      'a tampered body',
      {
        body: JSON.stringify({ ref: 'refs/heads/main', after: 'b'.repeat(40) }),
        signature: sign(JSON.stringify({ ref: 'refs/heads/main', after: SHA })),
      },
      'does not match',
    ],
    ['no signature header', { signature: null }, 'missing X-Hub-Signature-256'],
    ['a malformed signature header', { signature: 'sha1=abc' }, 'malformed X-Hub-Signature-256'],
  ])('refuses %s with 401 and no sync', async (_name, delivery: Delivery, message) => {
    const r = await start();
    const answer = await deliver(r, delivery);
    expect(answer.status).toBe(401);
    expect(answer.text).toContain(message);
    expect(answer.text).not.toMatch(/[0-9a-f]{64}/); // never the expected value
    expect(pushes).toEqual([]);
  });

  it('answers a ping with 200', async () => {
    const r = await start();
    const answer = await deliver(r, {
      event: 'ping',
      body: JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 }),
    });
    expect(answer).toEqual({ status: 200, text: 'pong\n' });
    expect(pushes).toEqual([]);
  });

  it('ignores pushes to other branches, tags and other events with 202', async () => {
    const r = await start();
    for (const ref of ['refs/heads/feature', 'refs/tags/v1', 'refs/heads/main-old']) {
      const answer = await deliver(r, { body: JSON.stringify({ ref, after: SHA }) });
      expect(answer.status).toBe(202);
      expect(answer.text).toContain('ignored');
    }
    expect((await deliver(r, { event: 'pull_request', body: '{}' })).status).toBe(202);
    expect(pushes).toEqual([]);
  });

  it('follows a configured branch', async () => {
    const r = await start({ branch: 'live' });
    expect((await deliver(r)).status).toBe(202);
    expect(await deliver(r, { body: JSON.stringify({ ref: 'refs/heads/live', after: SHA }) })).toMatchObject({
      status: 202,
    });
    expect(pushes).toEqual([SHA]);
  });

  it('refuses a body over the limit with 413, signed or not', async () => {
    const r = await start();
    const body = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    const answer = await deliver(r, { body });
    expect(answer.status).toBe(413);
    expect(pushes).toEqual([]);
    // The receiver still serves the next delivery.
    expect((await deliver(r)).status).toBe(202);
  });

  it('answers malformed JSON with a valid signature and a push without a commit with 400, no stack', async () => {
    const r = await start();
    const bad = await deliver(r, { body: '{"ref": "refs/heads/main", ' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('not JSON');
    expect(bad.text).not.toContain(' at ');
    for (const body of [
      '[]',
      'null',
      JSON.stringify({ ref: 'refs/heads/main' }),
      JSON.stringify({ ref: 'refs/heads/main', after: 'HEAD' }),
    ]) {
      expect((await deliver(r, { body })).status).toBe(400);
    }
    expect((await deliver(r, { event: '' })).status).toBe(400); // no X-GitHub-Event
    expect((await deliver(r, { method: 'GET' })).status).toBe(405);
    expect(pushes).toEqual([]);
  });

  it('refuses an empty secret', async () => {
    await expect(startWebhookReceiver({ port: 0, secret: '', onPush: () => undefined })).rejects.toThrow(
      'non-empty secret',
    );
  });

  it('frees its port on close', async () => {
    const r = await start();
    await deliver(r); // a kept-alive connection must not hold the port
    await r.close();
    receiver = undefined;
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(r.port, '127.0.0.1', () => probe.close(() => resolve()));
    });
  });
});
