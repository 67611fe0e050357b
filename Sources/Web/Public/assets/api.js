// The v1 API client: JSON in and out, the session's bearer token, and problem documents
// (RFC 9457) turned into ApiError with the document attached.
import * as session from './session.js';

export class ApiError extends Error {
  constructor(status, problem, message) {
    super(message || problem?.detail || problem?.title || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
  }
}

// Query values are percent-encoded (a space is %20, never the form encoding's `+`, which the
// API reads as a plus sign).
function url(path, query) {
  const target = new URL(path, window.location.origin);
  const pairs = [];
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  const search = [target.search.replace(/^\?/, ''), ...pairs].filter(Boolean).join('&');
  return target.pathname + (search ? `?${search}` : '');
}

/**
 * Calls the API. Options: query, body (sent as JSON), auth (false for none; default the session
 * token), headers, raw (answer the Response instead of parsed JSON), withCookies (send this
 * origin's cookies: only for redeeming a campus sign-in code).
 */
export async function call(method, path, options = {}) {
  const headers = { accept: 'application/json, application/problem+json', ...(options.headers ?? {}) };
  const bearer = options.auth === false ? null : session.token();
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  let body;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response;
  try {
    // No cookies: the API takes bearer tokens only. The one exception is redeeming a campus
    // sign-in code, which must carry the code cookie of the browser it was handed to.
    const credentials = options.withCookies ? 'same-origin' : 'omit';
    response = await fetch(url(path, options.query), { method, headers, body, credentials, cache: 'no-store' });
  } catch (error) {
    throw new ApiError(0, null, 'The gateway cannot be reached. Check your connection and try again.');
  }
  if (!response.ok) {
    let problem = null;
    const type = response.headers.get('content-type') || '';
    try {
      if (type.includes('json')) problem = await response.json();
    } catch {
      problem = null;
    }
    if (problem && typeof problem !== 'object') problem = { title: `Error ${response.status}`, detail: String(problem) };
    if (!problem) problem = { title: response.statusText || `Error ${response.status}`, status: response.status };
    // A throttled answer says when to try again in `Retry-After`; the problem may not repeat it.
    const retryAfter = Number(response.headers.get('retry-after'));
    if (problem.retryAfterSeconds == null && Number.isFinite(retryAfter) && retryAfter > 0) problem.retryAfterSeconds = retryAfter;
    // A token that expired or was revoked ends the session (a gradebook refusing its own
    // credentials is a 401 too, of another type, and leaves the session alone).
    if (response.status === 401 && bearer && options.auth !== false && problem.type === '/problems/unauthenticated') session.clear();
    throw new ApiError(response.status, problem);
  }
  if (options.raw) return response;
  if (response.status === 204) return null;
  const type = response.headers.get('content-type') || '';
  return type.includes('json') ? response.json() : response.text();
}

export const get = (path, query, options = {}) => call('GET', path, { ...options, query });
export const post = (path, body, options = {}) => call('POST', path, { ...options, body });
export const put = (path, body, options = {}) => call('PUT', path, { ...options, body });
export const patch = (path, body, options = {}) => call('PATCH', path, { ...options, body });
export const del = (path, options = {}) => call('DELETE', path, options);

/** Signs in: a token for these credentials, then the account. */
export async function signIn(username, password) {
  const issued = await call('POST', '/v1/auth/token', { auth: false, body: { username, password } });
  const account = await call('GET', '/v1/me', { auth: false, headers: { authorization: `Bearer ${issued.token}` } });
  session.start(issued, account);
  return account;
}

/** Signs in with the one-time code a campus sign-in ended with (`#signin=`). */
export async function signInWithCode(signinCode) {
  const issued = await call('POST', '/v1/auth/token', { auth: false, body: { signinCode }, withCookies: true });
  const account = await call('GET', '/v1/me', { auth: false, headers: { authorization: `Bearer ${issued.token}` } });
  session.start(issued, account);
  return account;
}

/** Revokes the token (best effort) and forgets it. */
export async function signOut() {
  if (session.token()) {
    try {
      await call('DELETE', '/v1/auth/token');
    } catch {
      // Already expired or revoked: forgetting it is enough.
    }
  }
  session.clear();
}
