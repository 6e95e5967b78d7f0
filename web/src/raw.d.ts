// Vite's `?raw` imports (a file's text as a string), used for the validation rows the accuracy view
// predicts and the list of sources it marks as not independent (web/src/ui/accuracy.ts).
declare module '*.jsonl?raw' {
  const text: string;
  export default text;
}
declare module '*.json?raw' {
  const text: string;
  export default text;
}
