// The Runtimes of one KCP namespace as a generator pass reads them (listed, or watched: object-source.ts), and
// the one annotation it writes back onto them (generator/runtime-source.ts decides what and when).
import type { KubeObject } from '../../model/kube-object.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { KubeClient } from './kube-client.js';
import { describeFailure, fixFor, type AnnotationWrite } from '../../model/kube-result.js';
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
    annotate: async (runtime: Runtime, name: string, value: string | null): Promise<AnnotationWrite> => {
      const ref = {
        apiVersion: RUNTIME_API_VERSION,
        kind: 'Runtime',
        namespace: runtime.metadata.namespace,
        name: runtime.metadata.name,
      };
      const written = await client.patch(ref, { metadata: { annotations: { [name]: value } } });
      if (written.ok) return { ok: true };
      return {
        ok: false,
        status: written.status,
        message: describeFailure(written),
        fix: fixFor(written.status, 'runtimes'),
      };
    },
    onChange: (listener: () => void) => source.onChange(listener),
    stop: () => source.stop(),
  };
}
