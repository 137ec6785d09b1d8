// Browser users of the workspace (admin): invite by name with a role (the one-use sign-in link shown
// once), change a role, mint a new sign-in link, remove after a confirmation.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { type Role, session } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { useResource } from "../../components/use-resource";
import { formatAgo, formatTime } from "../../components/format";
import { AdminOnly } from "./admin-only";
import { ConfirmDialog, ShownOnceDialog } from "../../components/dialog";
import { InviteUserForm } from "./invite-user-form";
import { ROLES, type SignIn, type User } from "./users-types";
// Vite bundles the page's stylesheet through this import.
import "./settings.css";
import { DataTable } from "../../components/data-table";
import { FormCard, ListSection } from "../../components/page-state";

export function UsersPage() {
  return (
    <AdminOnly
      title="Users"
      intro="People who sign in to this console. Each gets a one-use sign-in link; their changes are recorded under their name."
    >
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
  // A row's last failed action (role change, new link), shown in a full-width row under it.
  const [problems, setProblems] = useState<Record<string, ProblemError | null>>({});
  const setProblem = (user: User, problem: ProblemError | null) =>
    setProblems((current) => ({ ...current, [user.id]: problem }));
  const newLink = async (user: User) => {
    const { signIn } = await jsonOf(
      usersOf[":userId"]["sign-in-links"].$post(params({ ws, userId: user.id })),
    );
    setLink({ user, signIn, invited: false });
  };

  return (
    <>
      <FormCard id="invite-title" title="Invite a user">
        <InviteUserForm
          ws={ws}
          onInvited={(user, signIn) => {
            setLink({ user, signIn, invited: true });
            void users.reload();
          }}
        />
      </FormCard>
      <ListSection id="users-title" title="Users" problem={users.problem}>
        <DataTable
          class="data-table"
          label="Users"
          labelledBy="users-title"
          rows={users.data?.users}
          rowKey={(user) => user.id}
          rowAttributes={(user) => ({ "data-user-id": user.id })}
          loading={users.loading}
          loadingText="Loading users…"
          empty="No users yet."
          expansionClass="problem-row"
          expansion={(user) => problems[user.id] && <ProblemView problem={problems[user.id]} />}
          columns={[
            {
              header: "Name",
              cell: (user) => (
                <>
                  <strong>{user.name}</strong>
                  {user.id === session.value?.user.id && <span class="muted"> (you)</span>}
                </>
              ),
            },
            { header: "Email", cell: (user) => user.email ?? <span class="muted">—</span> },
            {
              header: "Role",
              cell: (user) => (
                <RoleSelect
                  ws={ws}
                  user={user}
                  onChanged={() => void users.reload()}
                  onProblem={(p) => setProblem(user, p)}
                />
              ),
            },
            {
              header: "Last sign-in",
              title: (user) => user.lastSignInAt,
              cell: (user) => (user.lastSignInAt ? formatAgo(user.lastSignInAt) : "never"),
            },
            {
              header: "Invited",
              title: (user) => user.createdAt,
              cell: (user) => (
                <>
                  {formatTime(user.createdAt)} <span class="muted">by {user.createdBy}</span>
                </>
              ),
            },
            {
              header: "Actions",
              hideHeader: true,
              cellClass: "actions-cell",
              cell: (user) => (
                <div class="row nowrap">
                  <BusyButton
                    onClick={() => newLink(user)}
                    onProblem={(p) => setProblem(user, p)}
                    busyLabel="Creating link…"
                  >
                    <span aria-hidden="true">New sign-in link</span>
                    <span class="sr-only">New sign-in link for {user.name}</span>
                  </BusyButton>
                  <button
                    type="button"
                    class="btn btn-danger"
                    aria-label={`Remove ${user.name}`}
                    onClick={() => setRemoving(user)}
                  >
                    Remove
                  </button>
                </div>
              ),
            },
          ]}
        />
      </ListSection>
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

/** A user's role, changed as soon as another is chosen (and disabled until the change is saved). */
function RoleSelect(props: {
  ws: string;
  user: User;
  onChanged: () => void;
  onProblem: (problem: ProblemError | null) => void;
}) {
  const { ws, user } = props;
  const [saving, setSaving] = useState(false);
  const changeRole = async (role: Role) => {
    setSaving(true);
    props.onProblem(null);
    try {
      await usersOf[":userId"].$patch({ ...params({ ws, userId: user.id }), json: { role } });
      props.onChanged();
    } catch (error) {
      props.onProblem(error as ProblemError);
    } finally {
      setSaving(false);
    }
  };
  return (
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
  );
}
