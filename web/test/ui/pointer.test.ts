import { describe, expect, it } from 'vitest';
import { fieldForError, getPointer, parsePointer, setPointer } from '../../src/state/pointer';

describe('JSON Pointer helpers', () => {
  it('parses RFC 6901 escapes', () => {
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
  });
  it('gets and sets nested values, creating objects and deleting with undefined', () => {
    const o: Record<string, unknown> = { parallel: { tp: 8 } };
    expect(getPointer(o, '/parallel/tp')).toBe(8);
    expect(getPointer(o, '/model/layers')).toBeUndefined();
    setPointer(o, '/system/scale_up/bandwidth_GBps', 450);
    expect(o).toEqual({ parallel: { tp: 8 }, system: { scale_up: { bandwidth_GBps: 450 } } });
    setPointer(o, '/parallel/tp', undefined);
    expect(o.parallel).toEqual({});
  });
  it('maps an engine error path to the deepest field that is it or its prefix', () => {
    const fields = ['/model', '/model/layers', '/parallel', '/parallel/tp', '/parallel/tpx', '/system/device'];
    expect(fieldForError('/parallel/tp', fields)).toBe('/parallel/tp');
    expect(fieldForError('/parallel', fields)).toBe('/parallel');
    expect(fieldForError('/parallel/dp', fields)).toBe('/parallel');
    expect(fieldForError('/model/moe/experts', fields)).toBe('/model');
    expect(fieldForError('/system/device/peak_tflops/bf16', fields)).toBe('/system/device');
    expect(fieldForError('/training/seq_len', fields)).toBeNull();
    expect(fieldForError('', fields)).toBeNull();
  });
});
