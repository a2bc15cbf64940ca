// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const FRAMEWORK = {
  group: ['fastify', '@fastify/*', 'find-my-way', '**/http/*'],
  message:
    'inner layers never see HTTP: services, repositories, records, network, storage and the core take domain inputs',
};
/** Which database runs (SQLite, PostgreSQL) is known to src/storage/ alone. */
const DATABASE_DRIVERS = {
  group: ['better-sqlite3', 'postgres', 'pg'],
  message: 'only src/storage/ talks to the database drivers (SQLite, PostgreSQL); use the storage module',
};
const SIMULATOR = {
  group: ['**/simulator/**'],
  message: 'the simulator (src/simulator/) is a product of its own: nothing in the service imports it',
};
/** The simulator meets the network functions on the wire only (docs/architecture.md, "The simulator"). */
const NETWORK_FUNCTIONS_AND_SERVICE = {
  group: [
    '**/network/amf/**',
    '**/network/smf/**',
    '**/network/upf/**',
    '**/network/ausf/**',
    '**/network/lmf/**',
    '**/network/smsf/**',
    '**/network/smsc-link/**',
    '**/network/ports/**',
    '**/network/working-state/**',
    '**/network/events/**',
    '**/network/network-state.ts',
    '**/network/network-metrics.ts',
    '**/network/radio-registry.ts',
    '**/core/**',
    '**/resources/**',
    '**/storage/**',
  ],
  message:
    'the simulator meets the network on the wire: codecs, crypto, transports and neutral helpers, never a network function, its ports or state, the core, resources or storage',
};
// `no-restricted-imports` sees static imports only; these catch the same modules loaded lazily.
const SIMULATOR_LOADED = {
  selector: 'ImportExpression[source.value=/(^|\\/)simulator\\//]',
  message: SIMULATOR.message,
};
// An IE or procedure's criticality comes from the ASN.1 object sets through the generated builders
// (src/network/*/generated/), never from a literal written by hand (docs/security.md).
const HAND_WRITTEN_CRITICALITY = {
  selector: "Property[key.name='criticality'][value.type='Literal']",
  message:
    'build the IE through its generated function (src/network/ngap/generated/, nrppa/generated/): criticalities come from the ASN.1 object sets',
};
const NETWORK_FUNCTIONS_AND_SERVICE_LOADED = {
  selector:
    'ImportExpression[source.value=/\\/(network\\/((amf|smf|upf|ausf|lmf|smsf|smsc-link|ports|working-state|events)\\/|(network-state|network-metrics|radio-registry)\\.ts)|(core|http|resources|storage)\\/)/]',
  message: NETWORK_FUNCTIONS_AND_SERVICE.message,
};
/** Kysely's query builders, its `sql` tag and the module itself: SQL, and with it the dialect. */
const WRITES_SQL = [
  {
    selector:
      'CallExpression[callee.property.name=/^(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)$/]',
    message: 'only src/storage/ and the repositories write SQL; go through a repository or a port',
  },
  {
    selector: "TaggedTemplateExpression[tag.name='sql']",
    message: 'only src/storage/ and the repositories write SQL; go through a repository or a port',
  },
  {
    selector: "ImportDeclaration[source.value='kysely']",
    message:
      'only src/storage/ and the repositories know the query builder; go through a repository or a port',
  },
];
const SERVICES_AND_REPOSITORIES = {
  group: ['**/resources/*/*.service.ts', '**/resources/*/*.repository.ts'],
  message: 'http/ reaches services only through the core and the routes, never a service or repository',
};

/** The network functions: each is a room of its own, built side by side in src/core/network-functions.ts. */
const NETWORK_FUNCTIONS = ['amf', 'smf', 'upf', 'ausf', 'lmf', 'smsf', 'smsc-link'];
/**
 * Another network function's internals, for `nf`: it reaches another only through the ports that one
 * defines (`src/network/<other>/ports/`), the composition in core/ wiring them (docs/architecture.md).
 */
const otherNetworkFunctions = (nf) => ({
  regex: `(^|/)(${NETWORK_FUNCTIONS.filter((other) => other !== nf).join('|')})/(?!ports/)`,
  message: `a network function imports another only through its ports/ (src/network/<nf>/ports/); src/core/network-functions.ts wires them`,
});

/** One entry per layer: the files, and the import patterns they may not use. */
export const LAYERS = [
  {
    files: [
      'src/resources/**/*.service.ts',
      'src/resources/**/*.repository.ts',
      'src/records/**/*.ts',
      'src/network/**/*.ts',
      'src/core/**/*.ts',
      'src/identity/**/*.ts',
      'src/crypto/**/*.ts',
      'src/retention/retention.service.ts',
      'src/backup/backup.service.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [FRAMEWORK, DATABASE_DRIVERS, SIMULATOR] },
      ],
    },
  },
  // The same for each network function, and none of the others' internals.
  ...NETWORK_FUNCTIONS.map((nf) => ({
    files: [`src/network/${nf}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [FRAMEWORK, DATABASE_DRIVERS, SIMULATOR, otherNetworkFunctions(nf)] },
      ],
    },
  })),
  {
    files: ['src/storage/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [FRAMEWORK, SIMULATOR] }] },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [DATABASE_DRIVERS, SERVICES_AND_REPOSITORIES, SIMULATOR] },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: [
      'src/storage/**',
      'src/resources/**/*.service.ts',
      'src/resources/**/*.repository.ts',
      'src/records/**',
      'src/network/**',
      'src/core/**',
      'src/identity/**',
      'src/crypto/**',
      'src/http/**',
      'src/simulator/**',
      'src/retention/retention.service.ts',
      'src/backup/backup.service.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [DATABASE_DRIVERS, SIMULATOR] }],
    },
  },
  {
    files: ['src/simulator/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [FRAMEWORK, DATABASE_DRIVERS, NETWORK_FUNCTIONS_AND_SERVICE] },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', SIMULATOR_LOADED, HAND_WRITTEN_CRITICALITY] },
  },
  {
    // The network functions reach stored state through their ports, implemented in src/storage/.
    files: [
      'src/network/**/*.ts',
      'src/core/**/*.ts',
      'src/http/**/*.ts',
      'src/identity/**/*.ts',
      'src/crypto/**/*.ts',
      'src/resources/**/*.service.ts',
      'src/resources/**/*.routes.ts',
      'src/main.ts',
    ],
    rules: { 'no-restricted-syntax': ['error', ...WRITES_SQL, SIMULATOR_LOADED, HAND_WRITTEN_CRITICALITY] },
  },
  {
    files: ['src/simulator/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...WRITES_SQL,
        NETWORK_FUNCTIONS_AND_SERVICE_LOADED,
        HAND_WRITTEN_CRITICALITY,
      ],
    },
  },
];

export default tseslint.config(
  // Generated codecs are checked by their drift test against the generator, which is linted itself.
  {
    ignores: [
      'node_modules/',
      'data/',
      'coverage/',
      '.bench/',
      'build/',
      'dist/',
      '.cache/',
      'src/network/*/generated/',
      // The API client's types: written by ui/scripts/api-schema.ts, checked by test/ui/api-schema.test.ts.
      'ui/src/api/schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'suite', 'test'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
      // Fastify plugins and handlers are async by contract even when they await nothing.
      '@typescript-eslint/require-await': 'off',
    },
  },
  // The SMF's and the AMF's state machines are discriminated unions (docs/sessions.md, "States";
  // docs/registration.md, "UE states"): a switch over one names every member, or says with `default`
  // what the others get.
  {
    files: ['src/network/smf/**/*.ts', 'src/network/amf/**/*.ts'],
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
    },
  },
  // Layering (docs/architecture.md): dependencies point inward. Checked by test/unit/layering.test.ts.
  ...LAYERS,
  // Plain JavaScript run by node itself, outside the TypeScript project.
  {
    files: ['eslint.config.js', 'scripts/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
