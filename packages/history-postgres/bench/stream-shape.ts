/** Chunks per streamed agent message in the throughput benchmarks' turns. */
export const CHUNKS = 20;
