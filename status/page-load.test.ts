import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { statusJson } from '../adapters/status-page/server.js';
import { sampleStatus } from '../test/helpers/sample-status.js';

/** The page's module, imported by its address: TypeScript does not type the page's JavaScript (no allowJs). */
const { readStatus } = (await import(new URL('./page/load.js', import.meta.url).href)) as {
  readStatus: (response: Response, early: (head: unknown) => Promise<void>) => Promise<unknown>;
};

/** The page's code reaches the browser's globals through `window`. */
beforeEach(() => vi.stubGlobal('window', globalThis));
afterEach(() => vi.unstubAllGlobals());

/** An answer whose body comes in pieces of `size` characters, as a large one comes over the network. */
function arriving(text: string, size: number): Response {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) controller.close();
      else controller.enqueue(bytes.slice(at, (at += size)));
    },
  });
  return new Response(body);
}

describe('readStatus', () => {
  it('gives the summary and the first hundred rows while the rest is on its way, then the whole status', async () => {
    const status = sampleStatus(1000);
    const early = vi.fn(async () => undefined);
    const whole = await readStatus(arriving(statusJson(status), 4096), early);
    expect(early).toHaveBeenCalledTimes(1);
    expect(early).toHaveBeenCalledWith({ ...status, rows: status.rows.slice(0, 100) });
    expect(whole).toEqual(status);
  });

  it('waits for the whole status when it is one line, or too small to show early', async () => {
    const early = vi.fn(async () => undefined);
    const big = sampleStatus(1000);
    expect(await readStatus(arriving(JSON.stringify(big), 4096), early)).toEqual(big);
    const small = sampleStatus(50);
    expect(await readStatus(arriving(statusJson(small), 512), early)).toEqual(small);
    expect(early).not.toHaveBeenCalled();
  });

  it('fails as JSON.parse does when the status is broken, early rows or not', async () => {
    const text = statusJson(sampleStatus(1000));
    await expect(readStatus(arriving(text.slice(0, -1), 4096), async () => undefined)).rejects.toThrow(SyntaxError);
  });
});
