// Lint: a small set of rules, each catching a mistake this codebase can actually make. Types are
// tsc's job (`npm run typecheck`), layout is the authors'. `npm test` runs build, typecheck, lint,
// then the tests.
//
// No type-aware rules (no-floating-promises and friends): they need the whole TypeScript program,
// which here costs as much as tsc itself (about 11 s of CPU) and took lint from ~8 s to 20-30 s.
// tsc already runs in `npm test`; lint stays syntactic and fast.
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const noOnly = { message: 'Remove .only before committing: a focused test silently skips the rest in CI.' };

export default defineConfig(
  {
    // Build output, installs and data, not code we write. fixtures/ holds patient files and tool
    // functions sent to the service; docs/ is prose.
    ignores: ['dist/**', 'dist.next*/**', 'node_modules/**', 'coverage/**', '.tmp/**', 'fixtures/**', 'docs/**'],
  },
  {
    files: ['**/*.{ts,js,mjs}'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    // A disable comment that no longer disables anything is noise that hides the next real finding.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Dead code: an unused import, variable or parameter is a leftover or a bug (a value computed
      // and then ignored). A leading `_` marks a deliberate discard (a field dropped by destructuring).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // `==` coerces ('' == 0, '1' == 1), and the values compared here come from files, flags and the
      // network. `x == null` (null or undefined) is the one idiom kept.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      // An import used only as a type says so, so esbuild (isolatedModules) drops it for certain and a
      // type taken from a heavy module (undici, conf, the sandbox) never loads it at start-up
      // (DESIGN.md, Startup). `import('x').T` in a type position loads nothing and stays allowed.
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
    },
  },
  {
    // bench/ and scripts/ are plain JavaScript that tsc does not check: a misspelt name is found here
    // or at run time.
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: globals.node },
    rules: { 'no-undef': 'error' },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // Output goes through ctx.io: stdout kept clean for pipes, captured by the test io, made safe
      // for terminals. console.* bypasses all three.
      'no-console': 'error',
      // Only src/cli.ts exits, after flushing stdout and mapping the error to its exit code; a command
      // that exits skips cleanup, journals and the error report (DESIGN.md, anti-patterns).
      'no-restricted-properties': ['error', { object: 'process', property: 'exit', message: 'Throw a CliError; only src/cli.ts exits.' }],
      // Colour comes from io.chalk()/io.chalkErr(), which know whether each stream is a terminal and
      // honour --no-color; chalk's global instance knows neither (DESIGN.md, Output).
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'chalk', importNames: ['default'], message: 'Use ctx.io.chalk() / chalkErr().', allowTypeImports: true }] },
      ],
    },
  },
  {
    files: ['src/cli.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'it', property: 'only', ...noOnly },
        { object: 'describe', property: 'only', ...noOnly },
        { object: 'test', property: 'only', ...noOnly },
      ],
    },
  },
);
