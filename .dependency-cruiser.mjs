// The architecture as import rules (`npm run lint` checks them with dependency-cruiser). Read from the
// bottom up: model/ is the vocabulary, rules/ the decisions several components share, the three components
// use both and reach the outside world only through adapters' types, adapters do the I/O, and cli/ wires
// it all together. Tests (*.test.ts) are held to the cycle rule only: they may build their inputs with
// whatever they need, e.g. the converter for a rule's test.
/** The project's own code; packages from npm and Node's built-ins are not layered. */
const OWN_FOLDERS = '^(model|rules|generator|applier|backfiller|status|adapters|cli|scripts|test)/';
const production = '(?<!\\.test)\\.ts$';

const only = (name, comment, from, allowed) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: '\\.test\\.ts$' },
  to: { path: OWN_FOLDERS, pathNot: allowed },
});

/** Everything outside `folders`, imported for its values (type-only imports of adapters are allowed). */
const adaptersValues = (name, comment, from) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: '\\.test\\.ts$' },
  to: { path: '^adapters/', dependencyTypesNot: ['type-only'] },
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    only('model-stands-alone', 'model/ is the vocabulary: types, names and tiny pure helpers, no I/O.', '^model/', [
      '^model/',
    ]),
    only('rules-build-on-model', 'rules/ holds the pure rules several components apply.', '^rules/', [
      '^model/',
      '^rules/',
    ]),
    only('generator-imports', 'The generator builds on model/ and rules/, and adapters for types.', '^generator/', [
      '^model/',
      '^rules/',
      '^generator/',
      '^adapters/',
    ]),
    // Inside the generator the layers are convert and propose, then validate on both; the top-level
    // files (the pass, its plan, the watch loop) use them all and nothing inside uses the top.
    only('convert-is-the-base', 'The converter needs only the vocabulary and shared rules.', '^generator/convert/', [
      '^model/',
      '^rules/',
      '^generator/convert/',
    ]),
    only(
      'propose-stands-alone',
      'Classes, PR bodies and merge policy are pure rules over changes.',
      '^generator/propose/',
      ['^model/', '^rules/', '^generator/propose/', '^adapters/'],
    ),
    only(
      'validate-on-convert-and-propose',
      'Validation checks what convert made, as propose classes it.',
      '^generator/validate/',
      ['^model/', '^rules/', '^generator/(convert|propose|validate)/'],
    ),
    only('applier-imports', 'The applier never imports the generator: what both need is in rules/.', '^applier/', [
      '^model/',
      '^rules/',
      '^applier/',
      '^adapters/',
    ]),
    only('backfiller-imports', 'The backfiller imports neither the applier nor the generator.', '^backfiller/', [
      '^model/',
      '^rules/',
      '^backfiller/',
      '^adapters/',
    ]),
    only(
      'status-imports',
      'status/ reads what the three components wrote; it imports none of them: what it shares with them is in rules/.',
      '^status/',
      ['^model/', '^rules/', '^status/', '^adapters/'],
    ),
    only('adapters-imports', 'Adapters do I/O for the components and know only the vocabulary.', '^adapters/', [
      '^model/',
      '^adapters/',
    ]),
    adaptersValues(
      'generator-adapter-types-only',
      'The generator talks to I/O through ports it is given.',
      '^generator/',
    ),
    adaptersValues('applier-adapter-types-only', 'The applier talks to I/O through ports it is given.', '^applier/'),
    adaptersValues('backfiller-adapter-types-only', 'The backfiller talks to I/O through ports.', '^backfiller/'),
    adaptersValues('status-adapter-types-only', 'The status view is pure: the I/O is cli/ wiring.', '^status/'),
    {
      name: 'production-imports-no-scripts',
      comment: 'scripts/ (benchmarks, the test plane) use the code; the code never uses them.',
      severity: 'error',
      from: { pathNot: ['^scripts/', '^test/', '\\.test\\.ts$'] },
      to: { path: '^scripts/' },
    },
    {
      name: 'nothing-imports-cli',
      comment: 'cli/ is the edge: it imports the rest, nothing imports it (but scripts and tests that run it).',
      severity: 'error',
      from: { pathNot: ['^cli/', '^scripts/', '^test/', '\\.test\\.ts$'] },
      to: { path: '^cli/' },
    },
    {
      name: 'production-imports-no-tests',
      comment: 'Production code never imports test code or test helpers.',
      severity: 'error',
      from: { path: production, pathNot: ['^test/', '^scripts/'] },
      to: { path: ['\\.test\\.ts$', '^test/'] },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycles between files (and so none between folders).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules', '^dist/', '^coverage/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
