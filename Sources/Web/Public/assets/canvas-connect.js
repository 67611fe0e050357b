// The end of connecting Canvas in the browser: the callback lands on the web app with
// `#canvas-connect={code}`, and only the account that began the connection can complete it
// (`POST /v1/me/gradebook-accounts/oauth/complete`). The fragment leaves the address bar at once;
// a browser that is not signed in keeps the code in this tab until it signs in (the gateway
// drops it after ten minutes).
import * as api from './api.js';
import * as session from './session.js';

const KEY = 'campus-gateway.canvas-connect';

/** Takes a `#canvas-connect=` code out of the address bar into this tab's storage. */
export function takeCanvasCode() {
  const match = window.location.hash.match(/^#canvas-connect=([A-Za-z0-9_-]{16,128})$/);
  if (!match) return false;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  sessionStorage.setItem(KEY, match[1]);
  return true;
}

/**
 * Completes a kept code when signed in. Resolves to the `#/grades?...` route that says how it
 * went, or null when there is nothing to complete (yet).
 */
export async function completeCanvasConnection() {
  const code = sessionStorage.getItem(KEY);
  if (!code || !session.token()) return null;
  sessionStorage.removeItem(KEY);
  try {
    const done = await api.post('/v1/me/gradebook-accounts/oauth/complete', { code });
    const who = [done.canvasUserName, `Canvas user ${done.canvasUserId}`].filter(Boolean).join(', ');
    return `#/grades?canvas=connected&canvasUser=${encodeURIComponent(who)}`;
  } catch (error) {
    if (error.status === 404) return '#/grades?canvas=not-yours';
    if (error.problem?.type === '/problems/gradebook-account-exists') return '#/grades?canvas=exists';
    if (error.problem?.type === '/problems/gradebook-account-limit') return '#/grades?canvas=limit';
    return '#/grades?canvas=unavailable';
  }
}
