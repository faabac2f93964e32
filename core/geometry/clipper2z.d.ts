/** The Clipper2 WebAssembly build's loader (its types are described in clipper-wasm.ts). */
declare module 'clipper2-wasm/dist/es/clipper2z.js' {
  const Clipper2Z: () => Promise<unknown>;
  export default Clipper2Z;
}
