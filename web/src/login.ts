/** The sign-in page: posts e-mail and password to /login, which sets the session cookie, then returns. */
import './style.css';

const form = document.getElementById('login-form') as HTMLFormElement;
const error = document.getElementById('login-error') as HTMLElement;
const returnUrl = new URLSearchParams(location.search).get('returnUrl') ?? '/';

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  error.textContent = '';
  const email = (document.getElementById('email') as HTMLInputElement).value.trim();
  const password = (document.getElementById('password') as HTMLInputElement).value;
  if (!email || !password) {
    error.textContent = 'Enter your e-mail and password.';
    return;
  }
  const res = await fetch('/login', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email, password, returnUrl }),
  });
  if (res.ok) {
    const body = (await res.json()) as { returnUrl: string };
    location.assign(body.returnUrl);
    return;
  }
  const body = (await res.json().catch(() => ({}))) as { message?: string };
  error.textContent = body.message ?? `Sign-in failed (${res.status}).`;
});
