// The signed-in user's token, kept in sessionStorage (this tab only; never in a URL), and the
// account it belongs to. Listeners hear every sign-in and sign-out.

const KEY = 'campus-gateway.session';
const listeners = new Set();
let current = read();

function read() {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) || 'null');
    if (value && value.token && (!value.expiresAt || new Date(value.expiresAt) > new Date())) return value;
  } catch {
    // A damaged entry is no session.
  }
  sessionStorage.removeItem(KEY);
  return null;
}

export function session() {
  if (current && current.expiresAt && new Date(current.expiresAt) <= new Date()) clear();
  return current;
}

export function token() {
  return session()?.token ?? null;
}

export function account() {
  return session()?.account ?? null;
}

/** Stores a token (and its account) and tells the listeners. */
export function start(issued, accountValue) {
  current = { token: issued.token, expiresAt: issued.expiresAt ?? null, account: accountValue ?? null };
  sessionStorage.setItem(KEY, JSON.stringify(current));
  for (const listener of listeners) listener(current);
}

export function setAccount(accountValue) {
  if (!current) return;
  current = { ...current, account: accountValue };
  sessionStorage.setItem(KEY, JSON.stringify(current));
}

/** Forgets the token (the caller revokes it first when it can). */
export function clear() {
  const had = current !== null;
  current = null;
  sessionStorage.removeItem(KEY);
  if (had) for (const listener of listeners) listener(null);
}

export function onChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
