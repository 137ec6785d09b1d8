// Trips to the upstream: once its session is open (one handshake per isolate
// and owner), each tools/call — and each pass-through request — reaches an
// official-SDK McpServer as exactly one POST, whether the upstream answers as
// JSON or on an event stream, statelessly or in a session.
import { beforeEach, describe, expect, it } from "vitest";
import {
  clearUpstreamSessions,
  dispatchToolCall,
  type UpstreamTarget,
} from "../../../../workers/gateway/tool-call/dispatch";
import { newUpstream } from "../../api/services/harness";
import { callTool, connect, setup } from "../harness";

const CALLS = 8;
const MODES = ["stateless", "sse", "stateful", "stateful-sse"] as const;

beforeEach(() => clearUpstreamSessions());

/** POSTs only: a client's standalone stream (a GET) belongs to no call. */
const posts = async (upstream: ReturnType<typeof newUpstream>) =>
  (await upstream.requests()).filter((request) => !request.method.startsWith("GET"));

describe("trips to the upstream", () => {
  for (const mode of MODES) {
    it(`${mode}: after the handshake, each call is one POST and nothing else`, async () => {
      const upstream = newUpstream();
      await upstream.mode(mode);
      const target: UpstreamTarget = {
        url: upstream.url,
        bearerToken: null,
        timeoutMs: 10_000,
        owner: { workspaceUid: "ws_trips", serviceUid: `svc_${mode}` },
      };
      for (let call = 0; call < CALLS; call++) {
        expect(await dispatchToolCall(target, "echo", { text: `${call}` })).toEqual({
          kind: "result",
          result: { content: [{ type: "text", text: `${call}` }] },
        });
        // Every request the upstream received so far, GETs included: a call that cost more fails here.
        expect((await upstream.requests()).map((request) => request.method)).toEqual([
          "initialize",
          "notifications/initialized",
          ...Array.from({ length: call + 1 }, () => "tools/call"),
        ]);
      }
    });
  }

  for (const mode of ["stateless", "stateful-sse"] as const) {
    it(`${mode}: through the gateway, each tools/call and resources/read of a client is one POST`, async () => {
      const g = await setup();
      await g.upstream.mode(mode);
      const client = await connect(g);
      // The first requests open the client's upstream session (the index's own connection came before).
      expect(await callTool(client, "echo", { text: "open" })).toMatchObject({ content: [{ text: "open" }] });
      await client.readResource({ uri: "demo://readme" });
      const before = (await posts(g.upstream)).length;
      for (let call = 0; call < CALLS; call++) {
        expect(await callTool(client, "echo", { text: `${call}` })).toMatchObject({
          content: [{ text: `${call}` }],
        });
        const read = await client.readResource({ uri: "demo://readme" });
        expect(read.contents).toEqual([
          { uri: "demo://readme", mimeType: "text/plain", text: `readme of ${g.upstream.tag}` },
        ]);
        const sent = (await posts(g.upstream)).slice(before).map((request) => request.method);
        expect(sent).toEqual(Array.from({ length: call + 1 }, () => ["tools/call", "resources/read"]).flat());
      }
      await client.close();
    });
  }
});
