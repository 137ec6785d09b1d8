import { useEffect } from "preact/hooks";

export function NotFound() {
  return (
    <div class="centered-card">
      <h1>Page not found</h1>
      <p>
        <a href="/">Back to the console</a>
      </p>
    </div>
  );
}

/**
 * An address of a workspace the session is not in. Whether it exists is not said (the API answers a
 * non-member as it answers a name nobody uses), and the signed-in workspace's frame is left out so
 * nothing suggests the page belongs to it.
 */
export function WorkspaceNotFound({ ws, home }: { ws: string; home: string }) {
  useEffect(() => {
    document.title = "No such workspace · Rayrun Hooks";
  }, []);
  return (
    <main class="centered-card" id="main">
      <h1>No such workspace</h1>
      {ws === home ? (
        <p>
          The workspace <code>{ws}</code> you are signed in to no longer exists.
        </p>
      ) : (
        <>
          <p>
            There is no workspace <code>{ws}</code> that you can open. You are signed in to the workspace{" "}
            <code>{home}</code>.
          </p>
          <div class="row">
            <a class="btn btn-primary" href={`/w/${home}`}>
              Go to your workspace
            </a>
          </div>
        </>
      )}
    </main>
  );
}
