// One keep-alive connection per origin over plain node:http, for the benches:
// no client-side pooling or fetch machinery between the timer and the socket.
import http from "node:http";

export interface Reply {
  status: number;
  body: string;
}

/** A request function over one keep-alive connection to `base`. */
export function client(base: string) {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          agent,
          headers: {
            ...(payload === undefined
              ? {}
              : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
}
