// Import rules of the code base (docs/ARCHITECTURE.md "Import rules"), checked by `npm run lint`.
// Arrows point down: the pipeline is pure event work, SIEM kinds talk to SIEMs, features use both,
// and only the HTTP layer knows Fastify.

/** Modules only the HTTP layer may use (as resolved into node_modules, or by name when unresolvable). */
const HTTP = '(^|node_modules/)(fastify|@fastify/[^/]+)(/|$)';
/** Database drivers, the query builder and our database layer. */
const DATABASE = '(^|node_modules/)(kysely|pg|@electric-sql/pglite)(/|$)|^src/db/';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A file never imports itself through others: cycles make load order and ownership unclear.',
      severity: 'error',
      from: { path: '^(src|test|bench)/' },
      to: { circular: true },
    },
    {
      name: 'pipeline-is-pure',
      comment:
        'src/pipeline is event work on bytes and objects handed in: no HTTP layer, database, shipping, ' +
        'SIEM kinds or features (shared errors and the clock type only).',
      severity: 'error',
      from: { path: '^src/pipeline/', pathNot: '\\.test\\.ts$' },
      to: {
        pathNot: [
          '^src/pipeline/',
          '^src/errors\\.ts$',
          '^src/clock\\.ts$',
          // The archive readers' libraries.
          '(^|node_modules/)(fflate|yauzl|tar)(/|$)',
        ],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'siem-kinds-talk-to-siems-only',
      comment:
        'A SIEM kind uses src/siems, the pipeline, the destination type, errors, the logger and the clock ' +
        '(and libraries): never the HTTP layer, the database, the context or features.',
      severity: 'error',
      from: { path: '^src/siems/' },
      to: {
        path: [HTTP, DATABASE, '^src/'],
        pathNot: [
          '^src/siems/',
          '^src/pipeline/',
          '^src/destinations/destination-types\\.ts$',
          '^src/(errors|logger|clock)\\.ts$',
        ],
      },
    },
    {
      name: 'shipping-is-the-send-side',
      comment: 'The shipping path uses kinds and the pipeline; it answers no HTTP and runs no features.',
      severity: 'error',
      from: { path: '^src/shipping/' },
      to: { path: [HTTP, '^src/(http|noise|lab-sessions|users|roles|auth|platform-status)/'] },
    },
    {
      name: 'fastify-only-in-routes-and-http',
      comment: 'Domain code never knows HTTP: only route files and src/http import Fastify.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['\\.routes\\.ts$', '^src/http/', '\\.test\\.ts$'] },
      to: { path: HTTP },
    },
    {
      name: 'no-test-code-in-src',
      comment: 'Production code never imports test helpers, simulators or fixtures.',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is not excluded (dependencies on excluded modules would vanish, and the rules on
    // Fastify and the database drivers with them); it is only not followed.
    exclude: { path: '^(data|coverage|\\.tmp)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
