// The API's route types (api/client.ts) are inferred from the Worker's source, so that source is
// type-checked here too, with the Workers runtime's declarations beside the DOM's (tsconfig.json
// includes them). Where the two disagree, these give the Worker's side; the console never calls them.

interface SubtleCrypto {
  timingSafeEqual(a: ArrayBuffer | ArrayBufferView, b: ArrayBuffer | ArrayBufferView): boolean;
}

interface ReadableStream<R> {
  pipeThrough<T>(
    transform: { readable: ReadableStream<T>; writable: WritableStream<BufferSource> },
    options?: StreamPipeOptions,
  ): ReadableStream<T>;
}
