import { describe, expect, it } from 'vitest';
import { csvField, fileStem, flatten, toCsv, toJson } from '../../src/ui/export';

describe('exports', () => {
  it('flattens a prediction to dotted paths, arrays by index', () => {
    expect(flatten({ a: { b: 1, c: [{ d: 'x' }] }, e: true })).toEqual([
      ['a.b', 1],
      ['a.c.0.d', 'x'],
      ['e', true],
    ]);
  });
  it('quotes CSV fields per RFC 4180', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField(null)).toBe('');
  });
  it('writes a metric,value CSV with numbers as String(x) and CRLF line ends', () => {
    const csv = toCsv({ training: { iteration_time_s: 65.26991174562218 }, warnings: [{ code: 'x.y', message: 'a, b' }] });
    expect(csv).toBe('metric,value\r\ntraining.iteration_time_s,65.26991174562218\r\nwarnings.0.code,x.y\r\nwarnings.0.message,"a, b"\r\n');
  });
  it('JSON export holds scenario and prediction', () => {
    expect(JSON.parse(toJson({ model: 'm' }, { memory: {} }))).toEqual({ scenario: { model: 'm' }, prediction: { memory: {} } });
  });
  it('file names from scenario names', () => {
    expect(fileStem('Llama 3 70B on 64 H100: training (TP8)')).toBe('llama-3-70b-on-64-h100-training-tp8');
    expect(fileStem(undefined)).toBe('optimus');
  });
});
