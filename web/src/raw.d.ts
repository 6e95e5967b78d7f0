// Vite's `?raw` imports (a file's text as a string), used for the validation rows the accuracy view
// predicts (web/src/ui/accuracy.ts).
declare module '*.jsonl?raw' {
  const text: string;
  export default text;
}
