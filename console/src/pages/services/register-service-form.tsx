// Registering an upstream MCP server: name, URL, optional authorization secret and timeout, payload
// capture. The API's errors[] appear at the fields they name.
import { useState } from "preact/hooks";
import { api, jsonOf, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { fieldErrors, messagesAt } from "../../components/field-errors";
import { TextField } from "../../components/text-field";
import type { Service } from "./types";

interface Props {
  ws: string;
  cancelHref: string;
  onRegistered: (service: Service) => void;
}

export function RegisterServiceForm(props: Props) {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [timeout, setTimeoutMs] = useState("");
  const [capture, setCapture] = useState(false);
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const errors = fieldErrors(problem);
  // A name already taken is a conflict naming the service, not a field error: it belongs at the name.
  const nameErrors = [
    ...messagesAt(errors, "/name"),
    ...(problem?.code === "conflict" && problem.body.name !== undefined ? [problem.detail] : []),
  ];
  const urlErrors = messagesAt(errors, "/url");
  const secretErrors = messagesAt(errors, "/authorizationSecret");
  const timeoutErrors = messagesAt(errors, "/timeoutMs");

  const register = async () => {
    const body = {
      name: name.trim(),
      url: url.trim(),
      payloadCapture: capture,
      ...(secret.trim() ? { authorizationSecret: secret.trim() } : {}),
      ...(timeout.trim() ? { timeoutMs: Number(timeout) } : {}),
    };
    props.onRegistered(
      await jsonOf(api.v1.workspaces[":ws"].services.$post({ ...params({ ws: props.ws }), json: body })),
    );
  };

  return (
    <form class="stack" onSubmit={(event) => event.preventDefault()}>
      <div class="form-grid">
        <TextField
          label="Name"
          hint="Lower-case letters, digits, - and _. Prefixes tool names that clash: name__tool."
          messages={nameErrors}
          name="name"
          value={name}
          required
          autocomplete="off"
          spellcheck={false}
          placeholder="github"
          onValue={setName}
        />
        <TextField
          label="URL"
          hint="The upstream's Streamable HTTP endpoint."
          messages={urlErrors}
          name="url"
          type="url"
          value={url}
          required
          autocomplete="off"
          spellcheck={false}
          placeholder="https://mcp.example.com/mcp"
          onValue={setUrl}
        />
        <TextField
          label="Authorization secret (optional)"
          hint="Name of a workspace secret sent as the bearer token."
          messages={secretErrors}
          name="authorizationSecret"
          value={secret}
          autocomplete="off"
          spellcheck={false}
          onValue={setSecret}
        />
        <TextField
          label="Timeout in ms (optional)"
          hint="Bound on one upstream tools/call; empty for the default."
          messages={timeoutErrors}
          name="timeoutMs"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={timeout}
          placeholder="60000"
          onValue={setTimeoutMs}
        />
      </div>
      <div class="check-row">
        <label class="inline">
          <input
            type="checkbox"
            name="payloadCapture"
            checked={capture}
            onChange={(e) => setCapture(e.currentTarget.checked)}
          />
          Capture payloads
        </label>
        <span class="hint">
          Store hook-run details of this service's calls (admins see them in the logs).
        </span>
      </div>
      <ProblemView problem={problem} />
      <div class="row">
        <BusyButton
          type="submit"
          kind="primary"
          onClick={register}
          onProblem={setProblem}
          busyLabel="Registering…"
          disabled={name.trim() === "" || url.trim() === ""}
        >
          Register
        </BusyButton>
        <a class="btn" href={props.cancelHref}>
          Cancel
        </a>
      </div>
    </form>
  );
}
