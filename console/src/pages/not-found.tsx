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
