// The Emscripten ES module factories built by `cmake --build --preset wasm`
// (build/wasm/wasm/optimus_wasm.js, the full engine, and optimus_wasm_first.js, the first-load
// one); vite.config.ts and vitest.config.ts alias them. The returned object is protocol.ts's
// OptimusModule.
declare module 'optimus-wasm' {
  export interface FactoryOptions {
    /** The .wasm bytes (Node tests); the browser fetches the hashed asset itself. */
    wasmBinary?: ArrayBuffer | Uint8Array;
    locateFile?: (path: string, prefix: string) => string;
    /** Instantiates the module itself (Emscripten's hook): calls `receive` once done, returns {}. */
    instantiateWasm?: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module?: WebAssembly.Module) => void) => object;
  }
  /** The Embind surface: protocol.ts's OptimusModule (wasm/bindings.cpp). */
  export type OptimusWasm = import('./protocol').OptimusModule;
  const createOptimusModule: (options?: FactoryOptions) => Promise<OptimusWasm>;
  export default createOptimusModule;
}
declare module 'optimus-wasm-first' {
  const createOptimusModule: typeof import('optimus-wasm').default;
  export default createOptimusModule;
}
