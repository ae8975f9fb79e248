/** The console's own sign-in page (GET /login): a form that posts JSON to POST /login. */
export function signInPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Socdrill</title>
<style nonce="${nonce}">
  body { font-family: system-ui, sans-serif; background: #0f172a; color: #e2e8f0; display: grid; place-items: center; min-height: 100vh; margin: 0; }
  form { background: #1e293b; padding: 2rem; border-radius: 8px; width: 20rem; display: grid; gap: .75rem; }
  h1 { margin: 0 0 .5rem; font-size: 1.25rem; }
  input, button { font: inherit; padding: .5rem; border-radius: 4px; border: 1px solid #475569; }
  button { background: #2563eb; color: white; border: none; cursor: pointer; }
  #msg { color: #fca5a5; min-height: 1.2em; margin: 0; }
</style>
</head>
<body>
<form id="f">
  <h1>Socdrill</h1>
  <label>E-mail <input id="email" type="email" autocomplete="username" required></label>
  <label>Password <input id="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
  <p id="msg" role="alert"></p>
</form>
<script nonce="${nonce}">
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const msg = document.getElementById('msg');
  msg.textContent = '';
  try {
    const res = await fetch('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: document.getElementById('email').value, password: document.getElementById('password').value }),
    });
    const body = await res.json();
    if (res.ok) { location.href = '/'; return; }
    msg.textContent = body.error ? body.error.message : 'Sign-in failed';
  } catch { msg.textContent = 'The server could not be reached'; }
});
</script>
</body>
</html>
`;
}
