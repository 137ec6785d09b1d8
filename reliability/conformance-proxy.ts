// A forwarding proxy in front of the gateway for the MCP conformance CLI, which
// cannot send headers of its own: every request goes to `target` with the same
// method, path, headers and body plus `addHeaders` (the API key), and the
// answer streams back as it arrives, so SSE events reach the client one by one
// and a long-lived GET stream stays open for as long as either side keeps it.
//
// Host and Origin are forwarded as received. The dns-rebinding-protection
// scenario sends `Host: evil.example.com` with a matching Origin and expects a
// refusal, then its own localhost Host and Origin and expects an answer; the
// gateway must decide both from what the client sent. The proxy connects to
// the gateway by address, and wrangler dev hands a Worker the Host it received
// (also as `request.url`'s host), so nothing but the client's own Host would
// keep that decision meaningful: rewriting Host to the gateway's and carrying
// the original in X-Forwarded-Host would test a header the gateway has no
// reason to trust.
import http from "node:http";
import type { AddressInfo } from "node:net";

/** RFC 9110 §7.6.1 hop-by-hop fields: they describe one connection, not the message. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  // Fields the Connection header names are hop-by-hop too.
  const named = new Set(
    (headers.connection ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ""),
  );
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name)) out[name] = value;
  }
  return out;
}

export interface ForwardingProxy {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  /** Ends every open exchange (long-lived streams included) and stops listening. */
  close: () => Promise<void>;
}

export async function startForwardingProxy(options: {
  /** The gateway's origin, `http://host:port`; paths are forwarded unchanged. */
  target: string;
  addHeaders: Record<string, string>;
}): Promise<ForwardingProxy> {
  const target = new URL(options.target);
  const open = new Set<http.ClientRequest>();
  // Without keep-alive each exchange owns its connection, so aborting one never disturbs another.
  const agent = new http.Agent({ keepAlive: false });

  const server = http.createServer({ noDelay: true }, (req, res) => {
    const headers = endToEnd(req.headers);
    headers.host = req.headers.host ?? target.host;
    for (const [name, value] of Object.entries(options.addHeaders)) headers[name.toLowerCase()] = value;

    const outgoing = http.request({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers,
      agent,
    });
    open.add(outgoing);
    outgoing.setNoDelay(true);
    outgoing.on("close", () => open.delete(outgoing));

    outgoing.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      // An SSE answer's first event may be a long way off: the client learns the status now.
      res.flushHeaders();
      answer.pipe(res);
      // The gateway dropped the answer midway: the client must see a broken one, not a short one.
      answer.on("close", () => {
        if (!answer.complete) res.destroy();
      });
      answer.on("error", () => res.destroy());
    });
    outgoing.on("error", (error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res
        .writeHead(502, { "content-type": "text/plain; charset=utf-8" })
        .end(`conformance proxy: ${options.target} unreachable: ${error.message}`);
    });

    // The client went away (closed an SSE stream, or aborted): so does the gateway's exchange.
    res.on("close", () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    res.on("error", () => outgoing.destroy());
    req.on("error", () => outgoing.destroy());
    req.pipe(outgoing);
  });

  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const request of open) request.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
      agent.destroy();
    },
  };
}
