// The engine's Web Worker: loads the wasm module once, then serves requests (protocol.ts) one at a
// time, in order. Requests that arrive while the module is still loading wait in a queue.
import createOptimusModule from 'optimus-wasm';
import { handleRequest, type OptimusModule, type Request, type Response } from './protocol';

// The dedicated worker's global scope, typed by hand: the "webworker" lib cannot be combined with
// the "dom" lib the rest of src/ compiles against.
const scope = self as unknown as {
  postMessage(message: Response): void;
  onmessage: ((event: MessageEvent<Request>) => void) | null;
};

const post = (r: Response): void => scope.postMessage(r);
let engine: OptimusModule | null = null;
let loadError: string | null = null;
const queue: Request[] = [];

function serve(req: Request): void {
  if (engine) handleRequest(engine, req, post);
  else post({ id: req.id, kind: 'failure', code: 'engine.crashed', message: `the engine could not be loaded: ${loadError ?? 'unknown reason'}` });
}

scope.onmessage = (event: MessageEvent<Request>): void => {
  if (engine || loadError !== null) serve(event.data);
  else queue.push(event.data);
};

createOptimusModule()
  .then((mod) => {
    engine = mod;
    post({ id: 0, kind: 'ready' });
  })
  .catch((e: unknown) => {
    loadError = e instanceof Error ? e.message : String(e);
    post({ id: 0, kind: 'failure', code: 'engine.crashed', message: `the engine could not be loaded: ${loadError}` });
  })
  .finally(() => {
    for (const req of queue.splice(0)) serve(req);
  });
