import { useState } from "preact/hooks";
import { api, jsonOf, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import type { Role } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { fieldErrors, messagesAt } from "../../components/field-errors";
import { SelectField, TextField } from "../../components/text-field";
import { ROLES, type SignIn, type User } from "./users-types";

/** Name, role and optional email; the new user and their sign-in link go to onInvited. */
export function InviteUserForm(props: { ws: string; onInvited: (user: User, signIn: SignIn) => void }) {
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("editor");
  const [email, setEmail] = useState("");
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const errors = fieldErrors(problem);
  const nameErrors = messagesAt(errors, "/name");
  const roleErrors = messagesAt(errors, "/role");
  const emailErrors = messagesAt(errors, "/email");

  const invite = async () => {
    const body = { name: name.trim(), role, ...(email.trim() ? { email: email.trim() } : {}) };
    const answer = await jsonOf(
      api.v1.workspaces[":ws"].users.$post({ ...params({ ws: props.ws }), json: body }),
    );
    setName("");
    setEmail("");
    props.onInvited(answer.user, answer.signIn);
  };

  return (
    <form class="stack" onSubmit={(event) => event.preventDefault()}>
      <div class="form-grid">
        <TextField
          label="Name"
          hint="Unique in the workspace; their changes are recorded under it."
          messages={nameErrors}
          name="name"
          value={name}
          required
          maxLength={100}
          autocomplete="off"
          onValue={setName}
        />
        <SelectField
          label="Role"
          hint={ROLES.find((r) => r.role === role)?.hint}
          messages={roleErrors}
          name="role"
          value={role}
          choices={ROLES.map((r) => ({ value: r.role, label: r.role }))}
          onValue={setRole}
        />
        <TextField
          label="Email (optional)"
          hint="Matched against the Cloudflare Access identity, when Access is set up."
          messages={emailErrors}
          name="email"
          type="email"
          value={email}
          autocomplete="off"
          onValue={setEmail}
        />
      </div>
      <ProblemView problem={problem} />
      <div class="row">
        <BusyButton
          type="submit"
          kind="primary"
          onClick={invite}
          onProblem={setProblem}
          busyLabel="Inviting…"
          disabled={name.trim() === ""}
        >
          Invite user
        </BusyButton>
      </div>
    </form>
  );
}
