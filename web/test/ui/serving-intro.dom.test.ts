// @vitest-environment happy-dom
// The served stream's opening words (src/ui/serving.ts servingIntro) say which batching ran: a
// static run (inference.serving.static_batching) admits waiting requests only once the last batch
// has finished, which the words had described as continuous admission whatever the run.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Prediction } from '../../src/engine/types';
import { servingIntro } from '../../src/ui/serving';

// The native golden prediction of the serving preset (vitest runs in web/).
const golden = JSON.parse(readFileSync(`${process.cwd()}/../tests/golden/llama3-70b-8xh100-serving.json`, 'utf8')) as Prediction;

describe('the serving intro', () => {
  it('names static batching only for a static run', () => {
    const serving = golden.serving!;
    expect(serving.static_batching).toBe(false);
    expect(servingIntro(serving).textContent).not.toContain('static batching');
    const words = servingIntro({ ...serving, static_batching: true }).textContent ?? '';
    expect(words).toContain('waiting requests join (static batching: only once the last batch has finished)');
  });
  it('counts devices and preemptions in the singular and the plural', () => {
    const serving = golden.serving!;
    expect(servingIntro(serving).textContent).toContain(`on 2 replicas (8 devices) in`);
    const one = servingIntro({ ...serving, replicas: 1, devices: 1, preemptions: 1 }).textContent ?? '';
    expect(one).toContain('on 1 replica (1 device) in');
    expect(one).toContain(', 1 preemption)');
    expect(servingIntro({ ...serving, preemptions: 1402 }).textContent).toContain(', 1,402 preemptions)');
  });
  it('says how many steps ran without CUDA graphs, and nothing where none did', () => {
    const serving = golden.serving!;
    expect(serving.eager_steps).toBe(0);
    expect(servingIntro(serving).textContent).not.toContain('CUDA graph');
    const words = servingIntro({ ...serving, eager_steps: 1234 }).textContent ?? '';
    expect(words).toContain('1,234 of the steps ran without CUDA graphs (more sequences, or tokens under vLLM, than the largest graph the runtime captured, or a prompt chunk on a runtime that prefills eager): their kernels were issued one by one from the host, which costs time where issuing them takes longer than the GPU’s work.');
  });
});
