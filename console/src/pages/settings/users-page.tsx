// Browser users of the workspace (admin): invite by name with a role (the one-use sign-in link shown
// once), change a role, mint a new sign-in link, remove after a confirmation.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { type Role, session } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { PageHeader } from "../../components/shell";
import { useResource } from "../../components/use-resource";
import { formatAgo, formatTime } from "../../components/format";
import { AdminOnly } from "./admin-only";
import { ConfirmDialog, ShownOnceDialog } from "../../components/dialog";
import { InviteUserForm } from "./invite-user-form";
import { ROLES, type SignIn, type User } from "./users-types";
// Vite bundles the page's stylesheet through this import.
import "./settings.css";
import { TableWrap } from "../../components/table-wrap";

export function UsersPage() {
  return (
    <AdminOnly title="Users">
      <Users />
    </AdminOnly>
  );
}

const usersOf = api.v1.workspaces[":ws"].users;

function Users() {
  const ws = useRoute().params.ws ?? "";
  const users = useResource(ws, (signal) => jsonOf(usersOf.$get(params({ ws }), cancelledBy(signal))));
  const [link, setLink] = useState<{ user: User; signIn: SignIn; invited: boolean } | null>(null);
  const [removing, setRemoving] = useState<User | null>(null);

  return (
    <>
      <PageHeader title="Users" />
      <p class="muted page-intro">
        People who sign in to this console. Each gets a one-use sign-in link; their changes are recorded under
        their name.
      </p>
      <section class="card" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite a user</h2>
        <InviteUserForm
          ws={ws}
          onInvited={(user, signIn) => {
            setLink({ user, signIn, invited: true });
            void users.reload();
          }}
        />
      </section>
      <section class="stack" aria-labelledby="users-title">
        <h2 id="users-title">Users</h2>
        <ProblemView problem={users.problem} />
        <TableWrap label="Users" busy={users.loading}>
          <table class="data-table" aria-labelledby="users-title">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Invited</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.data?.users.map((user) => (
                <UserRow
                  key={user.id}
                  ws={ws}
                  user={user}
                  onChanged={() => void users.reload()}
                  onLink={(signIn) => setLink({ user, signIn, invited: false })}
                  onRemove={() => setRemoving(user)}
                />
              ))}
            </tbody>
          </table>
          {users.data?.users.length === 0 && <div class="empty">No users yet.</div>}
          {!users.data && users.loading && <div class="empty">Loading users…</div>}
        </TableWrap>
      </section>
      {link && (
        <ShownOnceDialog
          title={link.invited ? `${link.user.name} is invited` : `New sign-in link for ${link.user.name}`}
          label="Sign-in link"
          value={link.signIn.url}
          warning={
            <>
              <strong>Copy this link now and send it to {link.user.name}.</strong> It is shown only once,
              signs in once, and expires {formatTime(link.signIn.expiresAt)}.
            </>
          }
          onClose={() => setLink(null)}
        />
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.name}?`}
          confirmLabel="Remove user"
          busyLabel="Removing…"
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await usersOf[":userId"].$delete(params({ ws, userId: removing.id }));
            setRemoving(null);
            await users.reload();
          }}
        >
          {removing.name} loses access at once: their sessions end and unused sign-in links stop working.
          Their past changes keep their name.
          {removing.id === session.value?.user.id && <strong> This is you: you will be signed out.</strong>}
        </ConfirmDialog>
      )}
    </>
  );
}

function UserRow(props: {
  ws: string;
  user: User;
  onChanged: () => void;
  onLink: (signIn: SignIn) => void;
  onRemove: () => void;
}) {
  const { ws, user } = props;
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const [saving, setSaving] = useState(false);
  const changeRole = async (role: Role) => {
    setSaving(true);
    setProblem(null);
    try {
      await usersOf[":userId"].$patch({ ...params({ ws, userId: user.id }), json: { role } });
      props.onChanged();
    } catch (error) {
      setProblem(error as ProblemError);
    } finally {
      setSaving(false);
    }
  };
  const newLink = async () => {
    const { signIn } = await jsonOf(
      usersOf[":userId"]["sign-in-links"].$post(params({ ws, userId: user.id })),
    );
    props.onLink(signIn);
  };
  return (
    <>
      <tr data-user-id={user.id}>
        <td>
          <strong>{user.name}</strong>
          {user.id === session.value?.user.id && <span class="muted"> (you)</span>}
        </td>
        <td>{user.email ?? <span class="muted">—</span>}</td>
        <td>
          <select
            aria-label={`Role of ${user.name}`}
            value={user.role}
            disabled={saving}
            aria-busy={saving}
            onChange={(event) => void changeRole(event.currentTarget.value as Role)}
          >
            {ROLES.map(({ role }) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </td>
        <td title={user.lastSignInAt ?? undefined}>
          {user.lastSignInAt ? formatAgo(user.lastSignInAt) : "never"}
        </td>
        <td title={user.createdAt}>
          {formatTime(user.createdAt)} <span class="muted">by {user.createdBy}</span>
        </td>
        <td class="actions-cell">
          <div class="row nowrap">
            <BusyButton onClick={newLink} onProblem={setProblem} busyLabel="Creating link…">
              <span aria-hidden="true">New sign-in link</span>
              <span class="sr-only">New sign-in link for {user.name}</span>
            </BusyButton>
            <button
              type="button"
              class="btn btn-danger"
              aria-label={`Remove ${user.name}`}
              onClick={props.onRemove}
            >
              Remove
            </button>
          </div>
        </td>
      </tr>
      {problem && (
        <tr class="problem-row">
          <td colSpan={6}>
            <ProblemView problem={problem} />
          </td>
        </tr>
      )}
    </>
  );
}
