// Campus sign-in (OpenID Connect) for both pages: whether the gateway offers it, the button, and
// the end of the flow. A sign-in comes back as `{returnTo}#signin={code}` (traded for a token
// at once) or `#signin-error={kind}`; either way the fragment leaves the address bar before
// anything else runs, so the code is never bookmarked, shared or kept in history.
import { h } from './dom.js';
import * as api from './api.js';
import * as session from './session.js';

let offer = null;

/** What `/v1/auth/oidc` says, asked once: `{ enabled, displayName, startPath, passwordSignIn }`. */
export async function campusOffer() {
  if (!offer) {
    offer = api.get('/v1/auth/oidc', undefined, { auth: false })
      .catch(() => ({ enabled: false, passwordSignIn: 'everyone' }));
  }
  return offer;
}

/** The "Sign in with ..." link, back to `returnTo` (a path on this gateway); null without a provider. */
export function campusButton(settings, returnTo) {
  if (!settings.enabled) return null;
  const href = `${settings.startPath}?returnTo=${encodeURIComponent(returnTo)}`;
  return h('a', { class: 'btn btn-primary campus-signin', href, id: 'campus-signin' }, settings.displayName || 'Sign in with Campus ID');
}

const failures = {
  state: 'That sign-in could not be finished (it expired, was used already or came from another browser). Please try again.',
  'provider-refused': 'Your campus sign-in was refused. If your account was disabled, ask the administrators.',
  'token-invalid': 'Your campus sign-in could not be verified. Please try again.',
  'not-yours': 'That sign-in link was not started in this browser, so it was refused and nothing changed. If you meant to sign in, use the sign-in button here.',
};

/**
 * Finishes a sign-in that came back in the fragment, if one did: clears it from the address bar
 * (keeping `keep` as the new fragment), then trades the code. Resolves to `{ account }`,
 * `{ error }` or null when the page was not the end of a sign-in.
 */
export async function finishCampusSignIn(keep = '') {
  const match = window.location.hash.match(/^#signin(-error)?=([^&]*)$/);
  if (!match) return null;
  const query = new URLSearchParams(window.location.search);
  const next = query.get('next');
  query.delete('next');
  const search = query.toString();
  window.history.replaceState(null, '', window.location.pathname + (search ? `?${search}` : '') + (next ? `#/${next}` : keep));
  if (match[1]) return { error: failures[decodeURIComponent(match[2])] || failures.state };
  // A signed-in session is never replaced without asking: a sign-in link someone else sent
  // would otherwise sign this browser in as them.
  const current = session.account();
  if (session.token() && !window.confirm(`You are signed in${current?.username ? ` as ${current.username}` : ''}. Sign in with your campus account instead?`)) {
    return { kept: true };
  }
  try {
    return { account: await api.signInWithCode(decodeURIComponent(match[2])) };
  } catch (error) {
    if (error.problem?.type === '/problems/signin-not-yours') return { error: failures['not-yours'] };
    return { error: error.status === 401 ? failures.state : error.message };
  }
}
