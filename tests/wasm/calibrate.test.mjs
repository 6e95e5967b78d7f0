// calibrate() and import_measurements() through the WebAssembly module, as the page's
// "Calibrate with your measurement" panel calls them (JSON Lines / a tool's file in, JSON out,
// errors in band, never an exception).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const dir = process.env.OPTIMUS_WASM_DIR
  ? pathToFileURL(process.env.OPTIMUS_WASM_DIR.replace(/\/?$/, '/'))
  : new URL('../../build/wasm/wasm/', import.meta.url);
const root = new URL('../../', import.meta.url);

let engine;
before(async () => {
  const { default: createModule } = await import(new URL('optimus_wasm.js', dir).href);
  engine = await createModule({ wasmBinary: readFileSync(new URL('optimus_wasm.wasm', dir)) });
});

const scenario = JSON.parse(readFileSync(new URL('presets/scenarios/default.json', root), 'utf8'));
const line = (measured) => JSON.stringify({ scenario, metric: 'training.iteration_time_s', measured });

test('calibrate on the engine\'s own prediction changes nothing (every factor 1)', () => {
  const predicted = JSON.parse(engine.predict(JSON.stringify(scenario))).training.iteration_time_s;
  const r = JSON.parse(engine.calibrate(line(predicted)));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  for (const f of r.fitted) assert.ok(Math.abs(f.value - 1) < 1e-6, `${f.factor} ${f.value}`);
});

test('a measurement 1.5x slower lowers a rate, and the calibration applies in predict', () => {
  const predicted = JSON.parse(engine.predict(JSON.stringify(scenario))).training.iteration_time_s;
  const r = JSON.parse(engine.calibrate(line(predicted * 1.5)));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.ok(Math.min(...r.fitted.map((f) => f.value)) < 1);
  const p = JSON.parse(engine.predict(JSON.stringify({ ...scenario, calibration: r.calibration })));
  assert.equal(p.calibration.applied, true);
  assert.equal(p.calibration.uncalibrated['training.iteration_time_s'], predicted);
  // The fit's own calibrated case and predict with the calibration agree (to rounding).
  assert.ok(Math.abs(p.training.iteration_time_s / r.cases[0].after - 1) < 1e-9);
});

test('bad lines and files are in-band errors with codes and paths', () => {
  assert.equal(JSON.parse(engine.calibrate('')).error.code, 'calibrate.no_measurements');
  const absurd = JSON.parse(engine.calibrate(line(1e9)));
  assert.equal(absurd.error.code, 'calibrate.measured_absurd');
  assert.equal(absurd.error.path, '/1/measured');
  assert.equal(JSON.parse(engine.import_measurements('nvprof', '{}', JSON.stringify(scenario))).error.code, 'import.unknown_format');
  assert.equal(JSON.parse(engine.import_measurements('megatron', 'no iterations here', JSON.stringify(scenario))).error.code, 'import.nothing_measured');
});

test('import: a Megatron log against a training scenario gives measurement lines', () => {
  const log = readFileSync(new URL('tests/data/import/megatron_train.log', root), 'utf8');
  const r = JSON.parse(engine.import_measurements('megatron', log, JSON.stringify(scenario)));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.format, 'megatron');
  assert.ok(r.measurements.length > 0);
  assert.equal(r.measurements[0].metric, 'training.iteration_time_s');
  assert.ok(Array.isArray(r.filled) && Array.isArray(r.unread));
});
