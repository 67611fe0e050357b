// The student web app: a hash router over the views, the navigation and the account menu.
import { h, replace, focusFirst, button } from './dom.js';
import * as session from './session.js';
import * as api from './api.js';
import { renderAuth } from './view-auth.js';
import { finishCampusSignIn } from './campus-signin.js';
import { takeCanvasCode, completeCanvasConnection } from './canvas-connect.js';
import { renderCatalog } from './view-catalog.js';
import { renderRegistration } from './view-registration.js';
import { renderBuilder } from './view-builder.js';
import { renderSchedules } from './view-schedules.js';
import { renderFriends } from './view-friends.js';
import { renderGrades } from './view-grades.js';
import { renderNotifications } from './view-notifications.js';

const views = [
  { path: 'catalog', label: 'Catalog', render: renderCatalog, needsAccount: false },
  { path: 'registration', label: 'My classes', render: renderRegistration, needsAccount: true },
  { path: 'builder', label: 'Schedule builder', render: renderBuilder, needsAccount: false },
  { path: 'schedules', label: 'Saved schedules', render: renderSchedules, needsAccount: true },
  { path: 'friends', label: 'Friends', render: renderFriends, needsAccount: true },
  { path: 'grades', label: 'Grades', render: renderGrades, needsAccount: true },
  { path: 'notifications', label: 'Notifications', render: renderNotifications, needsAccount: true },
];

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const accountBox = document.getElementById('account');
const toastBox = document.getElementById('toast');
let toastTimer = null;

/** A short message in the polite live region at the bottom of the page. */
export function toast(text) {
  toastBox.textContent = text;
  toastBox.classList.add('visible');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => toastBox.classList.remove('visible'), 4000);
}

function parseHash() {
  const raw = window.location.hash.replace(/^#\/?/, '');
  const [path, queryString] = raw.split('?');
  return { path: path || '', params: new URLSearchParams(queryString || '') };
}

export function go(path) {
  if (window.location.hash === `#/${path}`) route();
  else window.location.hash = `#/${path}`;
}

function renderNav(active) {
  const links = views.map((view) =>
    h('a', { href: `#/${view.path}`, 'aria-current': view.path === active ? 'page' : null }, view.label));
  replace(nav, h('ul', {}, links.map((link) => h('li', {}, link))));
}

function renderAccount() {
  const current = session.account();
  if (current) {
    replace(accountBox,
      h('span', { class: 'who' }, 'Signed in as ', h('strong', { text: current.username })),
      button('Sign out', async () => {
        await api.signOut();
        toast('Signed out.');
        go('signin');
      }, 'link', { id: 'sign-out' }));
  } else {
    replace(accountBox, h('a', { href: '#/signin', class: 'btn btn-link' }, 'Sign in'));
  }
}

let renderToken = 0;
let firstRender = true;
/** Renders the view the hash names. Focus moves to its heading, except on the page's first load
 * (so the keyboard starts at the skip link). */
async function route() {
  const moveFocus = !firstRender;
  firstRender = false;
  const { path, params } = parseHash();
  const signedIn = Boolean(session.token());
  let view = views.find((v) => v.path === path);
  renderNav(view?.path ?? path);
  renderAccount();
  const ticket = ++renderToken;
  const container = h('div', { class: 'view' });
  replace(main, container);
  if (path === 'signin' || path === 'signup' || (!view && !signedIn) || (view?.needsAccount && !signedIn)) {
    const next = view?.needsAccount ? view.path : (params.get('next') || 'catalog');
    await renderAuth(container, { mode: path === 'signup' ? 'signup' : 'signin', next, go, toast });
    if (ticket !== renderToken) return;
    document.title = 'Sign in · Campus Gateway';
    if (moveFocus) focusFirst(container);
    return;
  }
  if (!view) view = views[0];
  document.title = `${view.label} · Campus Gateway`;
  try {
    await view.render(container, { params, go, toast, isCurrent: () => ticket === renderToken });
  } catch (error) {
    replace(container, h('h1', { text: view.label }), h('p', { class: 'problem', role: 'alert', text: error.message }));
  }
  if (ticket === renderToken && moveFocus) focusFirst(container);
}

session.onChange((value) => {
  renderAccount();
  // A Canvas connection that landed before the sign-in is completed by the account now signed in.
  if (value) completeCanvasConnection().then((target) => { if (target) window.location.hash = target; });
  // A session that ended (signed out, or the token expired or was revoked) leaves the views
  // that need it.
  if (!value) route();
});
window.addEventListener('hashchange', route);

async function startApp() {
  // The end of a Canvas connection: the code leaves the address bar at once, and is completed
  // by the signed-in owner (now, or once signed in).
  if (takeCanvasCode()) {
    const target = await completeCanvasConnection();
    window.history.replaceState(null, '', `${window.location.pathname}${target ?? '#/signin'}`);
  }
  // The end of a campus sign-in comes first: the fragment leaves the address bar at once.
  const campus = await finishCampusSignIn('#/catalog');
  if (campus?.account) toast(`Welcome, ${campus.account.username}.`);
  if (campus?.error) {
    // Signed in already: the session stays, and so does the page; otherwise the sign-in view.
    if (!session.token()) window.history.replaceState(null, '', `${window.location.pathname}#/signin`);
    toast(campus.error);
  }
  // A stored session is checked once: a revoked or expired token signs out quietly.
  if (session.token() && !campus?.account) {
    api.get('/v1/me').then((me) => {
      session.setAccount(me);
      renderAccount();
    }).catch(() => renderAccount());
  }
  route();
}
startApp();
