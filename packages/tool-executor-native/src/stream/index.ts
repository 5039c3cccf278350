/** Eager start from a model stream (see `executeToolStream`). */
export { type ExecuteToolStreamOptions, type ToolStreamOutcome, type ToolStreamRun, StreamCutError, executeToolStream } from './execute-stream'
export type { StreamedResult } from './ordered'
export { type StreamChunkTypes, type StreamProvider, type StreamParseOptions, STREAM_PROVIDERS } from './sources'
