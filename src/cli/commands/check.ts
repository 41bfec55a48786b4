/**
 * `dispatchkit check [--data <dataset.dkds>] [--kind K] [--json] <spec.json|->`: the
 * specification linter. Prints each warning on stdout as `path: message [code]`, then each
 * validation error (what would make the operation Failed) as `error: path: message`. Exit 0 when
 * there are at most warnings, 1 when the record does not validate, 2 when the JSON is unreadable
 * or its kind cannot be told. With `--data`, stops are also checked against the road network.
 */
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { Engine } from '../../engine.js';
import { detectSpecificationKind, lintSpecification, specificationSchema, type LintKind, type LintWarning } from '../../ops/lint.js';
import { DATA_OPTION, parseCommandArgs, printJson, readJson } from '../io.js';

const KINDS: readonly LintKind[] = ['Dispatch', 'Geocode', 'CalculateDistance'];
const usage = 'dispatchkit check [--data <dataset.dkds>] [--kind Dispatch|Geocode|CalculateDistance] [--json] <spec.json|->';

/** One line per warning: `path: message [code]`. */
export function formatWarning(w: LintWarning): string {
  return `${w.path || '(record)'}: ${w.message} [${w.code}]`;
}

export const checkCommand: Command = {
  name: 'check',
  summary: 'Lint a specification (Dispatch, Geocode or CalculateDistance JSON): misspelt fields, ignored or empty time windows, unknown names, stops off the road network',
  usage,
  options: [
    { flag: '-d, --data <dataset.dkds>', description: 'also check that every coordinate is near a road of this dataset' },
    { flag: '--kind KIND', description: 'Dispatch, Geocode or CalculateDistance', default: 'told from the properties' },
    { flag: '--json', description: 'print { kind, warnings, errors } as JSON' },
  ],
  examples: ['dispatchkit check spec.json', 'dispatchkit check --data data/monaco-latest.dkds --json spec.json'],
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { ...DATA_OPTION, kind: { type: 'string' }, json: { type: 'boolean' } });
    if (positionals.length !== 1) {
      process.stderr.write(`Usage: ${usage}\n`);
      return EXIT.usage;
    }
    let kind: LintKind | undefined;
    if (values.kind !== undefined) {
      kind = KINDS.find((k) => k.toLowerCase() === values.kind!.toLowerCase());
      if (!kind) {
        process.stderr.write(`--kind must be one of ${KINDS.join(', ')} (got ${values.kind}).\n`);
        return EXIT.usage;
      }
    }
    const spec = readJson(positionals[0]);
    kind ??= detectSpecificationKind(spec);
    if (!kind) {
      process.stderr.write(`error [InvalidInput]: cannot tell which specification this is (no property of a ${KINDS.join(', ')} specification); give --kind.\n`);
      return EXIT.usage;
    }
    const engine = values.data ? await Engine.open(values.data) : null;
    try {
      const warnings = lintSpecification(kind, spec, engine?.context());
      const parsed = specificationSchema(kind).safeParse(spec);
      const errors = parsed.ok ? [] : parsed.issues;
      if (values.json) {
        printJson({ kind, warnings, errors });
      } else {
        for (const w of warnings) process.stdout.write(`${formatWarning(w)}\n`);
        for (const e of errors) process.stdout.write(`error: ${e.path || '(record)'}: ${e.message}\n`);
        process.stderr.write(`${kind} specification: ${warnings.length} warning${warnings.length === 1 ? '' : 's'}, ${errors.length} error${errors.length === 1 ? '' : 's'}.\n`);
      }
      return errors.length > 0 ? EXIT.failed : EXIT.ok;
    } finally {
      await engine?.close();
    }
  },
};
