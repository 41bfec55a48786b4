/**
 * `dispatchkit live` and `dispatchkit redispatch`: live re-dispatch on files, without a server or an
 * account (docs/live.md). The plan is a DispatchResult (what `dispatchkit dispatch` printed), the
 * specification what it answers (the Dispatch's specification, or what the last re-dispatch wrote
 * with `--next`), tracks `{ "<Vehicle Name>": [TrackPoint, …] }` and events `[StopEvent, …]`.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { Engine } from '../../engine.js';
import { planOf, type LiveEvent, type LivePlan } from '../../ops/live/index.js';
import { dateToSeconds, StopEventSchema, TrackPointSchema } from '../../records/index.js';
import { checkOutputPath, DATA_OPTION, parseCommandArgs, printJson, readJson } from '../io.js';

const FILES = { plan: { type: 'string' }, spec: { type: 'string' }, tracks: { type: 'string' }, events: { type: 'string' } } as const;

const FILE_OPTIONS = [
  { flag: '-d, --data <dataset.dkds>', description: 'the dataset to answer on' },
  { flag: '--plan <result.json>', description: 'the plan: a DispatchResult (or a re-dispatch\'s result)' },
  { flag: '--spec <spec.json>', description: 'what the plan answers: its DispatchSpecification, or the `--next` file of the re-dispatch that made it' },
  { flag: '--tracks <tracks.json>', description: '{ "<Vehicle Name>": [{ Latitude, Longitude, TimeStamp }, …] }', default: 'none' },
  { flag: '--events <events.json>', description: '[{ Vehicle, Location, Event: Arrived|Done|Failed|Skipped, TimeStamp }, …]', default: 'none' },
];

/** The plan and what is known of its day, from files; an error message when a file is not what it should be. */
function readPlan(values: { plan?: string; spec?: string; tracks?: string; events?: string }): LivePlan | string {
  if (!values.plan || !values.spec) return '--plan and --spec are required';
  const result = planOf(JSON.stringify(readJson(values.plan)));
  if (!result) return `${values.plan}: not a DispatchResult`;
  const specification = JSON.stringify(readJson(values.spec));
  const tracks = new Map<string, { lat: number; lon: number; ts: number }[]>();
  if (values.tracks) {
    const raw = readJson(values.tracks);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return `${values.tracks}: must be { "<Vehicle Name>": [TrackPoint, …] }`;
    for (const [name, list] of Object.entries(raw)) {
      if (!Array.isArray(list)) return `${values.tracks}: ${name} must be a list of TrackPoints`;
      const pts: { lat: number; lon: number; ts: number }[] = [];
      for (const [i, p] of list.entries()) {
        const r = TrackPointSchema.safeParse(p, `${name}[${i}]`);
        const ts = r.ok ? dateToSeconds(r.value.TimeStamp) : null;
        if (!r.ok || ts === null) return `${values.tracks}: ${r.ok ? `${name}[${i}].TimeStamp: is not set` : `${r.issues[0].path}: ${r.issues[0].message}`}`;
        pts.push({ lat: r.value.Latitude, lon: r.value.Longitude, ts: ts * 1000 });
      }
      tracks.set(name, pts.sort((a, b) => a.ts - b.ts));
    }
  }
  const events: LiveEvent[] = [];
  if (values.events) {
    const raw = readJson(values.events);
    if (!Array.isArray(raw)) return `${values.events}: must be a list of StopEvents`;
    for (const [i, e] of raw.entries()) {
      const r = StopEventSchema.safeParse(e, `[${i}]`);
      if (!r.ok) return `${values.events}: ${r.issues[0].path}: ${r.issues[0].message}`;
      events.push({ vehicle: r.value.Vehicle, location: r.value.Location, event: r.value.Event, ts: (dateToSeconds(r.value.TimeStamp) ?? 0) * 1000 });
    }
  }
  return { result, specification, tracks, events };
}

export const liveCommand: Command = {
  name: 'live',
  summary: 'The live state of a plan: each vehicle\'s matched position, stops done (events, then dwells on its track), remaining stops with renewed estimates',
  usage: 'dispatchkit live --data <dataset.dkds> --plan <result.json> --spec <spec.json> [--tracks <tracks.json>] [--events <events.json>] [--as-of <dateTime>]',
  options: [...FILE_OPTIONS, { flag: '--as-of <dateTime>', description: 'the instant of the state', default: 'now' }],
  examples: ['dispatchkit live --data porto.dkds --plan plan.json --spec spec.json --tracks tracks.json --as-of 2026-11-02T11:00:00Z'],
  async run(argv) {
    const { values } = parseCommandArgs(argv, { ...DATA_OPTION, ...FILES, 'as-of': { type: 'string' } });
    if (!values.data) { process.stderr.write(`Usage: ${this.usage}\n`); return EXIT.usage; }
    const plan = readPlan(values);
    if (typeof plan === 'string') { process.stderr.write(`error [InvalidInput]: ${plan}\n`); return EXIT.usage; }
    const asOf = values['as-of'] !== undefined ? dateToSeconds(values['as-of']) : Date.now() / 1000;
    if (asOf === null) { process.stderr.write(`error [InvalidInput]: --as-of: not a date (${values['as-of']})\n`); return EXIT.usage; }
    const engine = await Engine.open(values.data, { threads: 1 });
    try {
      const r = engine.liveState(plan, asOf * 1000);
      printJson(r);
      return r.Status === 'Failed' ? EXIT.failed : EXIT.ok;
    } finally {
      await engine.close();
    }
  },
};

export const redispatchCommand: Command = {
  name: 'redispatch',
  summary: 'Re-dispatch a plan from now: done stops leave, the next ones stay, vehicles start where they are, few stops move (docs/live.md)',
  usage: 'dispatchkit redispatch --data <dataset.dkds> --plan <result.json> --spec <spec.json> [--tracks …] [--events …] [--next <spec.json>] <request.json|->',
  options: [...FILE_OPTIONS, { flag: '--next <file>', description: 'write what the next re-dispatch starts from (its --spec)' }],
  examples: ['dispatchkit redispatch --data porto.dkds --plan plan.json --spec spec.json --tracks tracks.json --next spec2.json request.json > plan2.json'],
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { ...DATA_OPTION, ...FILES, next: { type: 'string' } });
    if (!values.data || positionals.length !== 1) { process.stderr.write(`Usage: ${this.usage}\n`); return EXIT.usage; }
    if (values.next) checkOutputPath(values.next, '--next');
    const plan = readPlan(values);
    if (typeof plan === 'string') { process.stderr.write(`error [InvalidInput]: ${plan}\n`); return EXIT.usage; }
    const request = readJson(positionals[0]);
    const engine = await Engine.open(values.data);
    try {
      const a = await engine.redispatch(plan, request);
      printJson(a.result);
      if (values.next && a.specification !== null) writeFileSync(values.next, a.specification);
      return a.result.Status === 'Failed' ? EXIT.failed : EXIT.ok;
    } finally {
      await engine.close();
    }
  },
};
