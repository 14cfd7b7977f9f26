// The Runtimes of one KCP namespace as a generator pass reads them (listed, or watched: object-source.ts), and
// the annotations it writes back onto them or takes off (generator/runtime-source.ts decides what and when).
import type { KubeObject } from '../../model/kube-object.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import { CONTENT_TYPE, type KubeClient } from './kube-client.js';
import { describeFailure, fixFor, type AnnotationWrite, type KubeResult } from '../../model/kube-result.js';
import { objectSource } from './object-source.js';

export function kcpRuntimeSource(
  client: KubeClient,
  options: { namespace: string; watch: boolean; log: (line: string) => void },
) {
  const { namespace } = options;
  const source = objectSource<KubeObject & Runtime>(
    client,
    { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' },
    options,
  );
  return {
    read: async () => ({
      inputs: (await source.items()).map((runtime) => ({
        source: `kcp ${namespace}/${runtime.metadata.name}`,
        runtime,
      })),
      errors: [] as string[],
    }),
    // A merge patch of the one annotation: no resourceVersion, so it never conflicts with KEB's or the backfiller's writes.
    annotate: (runtime: Runtime, name: string, value: string | null): Promise<AnnotationWrite> =>
      annotationWrite(client.patch(refOf(runtime), { metadata: { annotations: { [name]: value } } })),
    // A JSON patch: each annotation tested for its value, then removed, at once; a test that fails writes nothing (422).
    removeAnnotations: (runtime: Runtime, expected: Readonly<Record<string, string>>): Promise<AnnotationWrite> => {
      const paths = Object.entries(expected).map(([name, value]) => [
        `/metadata/annotations/${pointerToken(name)}`,
        value,
      ]);
      return annotationWrite(
        client.patch(
          refOf(runtime),
          [
            ...paths.map(([path, value]) => ({ op: 'test', path, value })),
            ...paths.map(([path]) => ({ op: 'remove', path })),
          ],
          CONTENT_TYPE.jsonPatch,
        ),
      );
    },
    onChange: (listener: () => void) => source.onChange(listener),
    stop: () => source.stop(),
  };
}

function refOf(runtime: Runtime) {
  return {
    apiVersion: RUNTIME_API_VERSION,
    kind: 'Runtime',
    namespace: runtime.metadata.namespace,
    name: runtime.metadata.name,
  };
}

/** A JSON pointer's token for an annotation name (RFC 6901: `~` and `/` escaped). */
function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

async function annotationWrite(request: Promise<KubeResult<unknown>>): Promise<AnnotationWrite> {
  const written = await request;
  if (written.ok) return { ok: true };
  return {
    ok: false,
    status: written.status,
    message: describeFailure(written),
    fix: fixFor(written.status, 'runtimes'),
  };
}
