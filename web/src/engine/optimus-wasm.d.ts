// The Emscripten ES module factory built by `cmake --build --preset wasm`
// (build/wasm/wasm/optimus_wasm.js); vite.config.ts and vitest.config.ts alias it. The returned
// object is protocol.ts's OptimusModule.
declare module 'optimus-wasm' {
  export interface FactoryOptions {
    /** The .wasm bytes (Node tests); the browser fetches the hashed asset itself. */
    wasmBinary?: ArrayBuffer | Uint8Array;
    locateFile?: (path: string, prefix: string) => string;
  }
  /** The Embind surface: protocol.ts's OptimusModule (wasm/bindings.cpp). */
  export type OptimusWasm = import('./protocol').OptimusModule;
  const createOptimusModule: (options?: FactoryOptions) => Promise<OptimusWasm>;
  export default createOptimusModule;
}
