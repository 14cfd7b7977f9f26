// kimops_build_info: the Prometheus convention for "which build is this" — a gauge of 1 whose labels name the
// version and the Node it runs on, so a dashboard can show what runs where and an alert can join on it.
import { Gauge, type Registry } from 'prom-client';

export function registerBuildInfo(registry: Registry, version: string, node: string = process.version): void {
  new Gauge({
    name: 'kimops_build_info',
    help: 'Always 1; the labels say which kimops version runs, on which Node',
    labelNames: ['version', 'node'],
    registers: [registry],
  }).set({ version, node }, 1);
}
