// The operator console: sign in (admins and operators), then pages of panels by hash route
// (#/jobs, #/instances, #/charts, #/audit; the overview without one), refreshed in place.
// An operator whose gateway does not let operators act sees no action buttons.
import { h, replace, append, field, errorSlot, busy, button, focusFirst } from './dom.js';
import * as api from './api.js';
import * as session from './session.js';
import { queuesPanel, schedulesPanel, sourcesPanel, deliveriesPanel, eligibilityPanel, healthPanel } from './admin-panels.js';
import { jobsPanel } from './admin-jobs.js';
import { instancesPanel, chartsPanel, auditPanel } from './admin-ops.js';
import { canAct } from './admin-common.js';
import { campusOffer, campusButton, finishCampusSignIn } from './campus-signin.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const accountBox = document.getElementById('account');
const toastBox = document.getElementById('toast');
const REFRESH_MS = 5000;
const CONSOLE_ROLES = new Set(['admin', 'operator']);
// The pages: the overview at /admin/ (no route), the others at #/<route>.
const PAGES = [
  { route: '', title: 'Overview', heading: 'Operator console', panels: [queuesPanel, schedulesPanel, sourcesPanel, deliveriesPanel, eligibilityPanel, healthPanel] },
  { route: 'jobs', title: 'Jobs', panels: [jobsPanel] },
  { route: 'instances', title: 'Instances', panels: [instancesPanel] },
  { route: 'charts', title: 'Charts', panels: [chartsPanel] },
  { route: 'audit', title: 'Audit', panels: [auditPanel] },
];
let timer = null;
let currentPage = null;
// Auto-refresh paused by the reader: it stays paused from page to page.
let paused = false;
let toastTimer = null;
// Focus moves to each new view's heading, but not on the page's first load (the keyboard
// starts at the skip link then).
let moveFocus = false;

function toast(text) {
  toastBox.textContent = text;
  toastBox.classList.add('visible');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => toastBox.classList.remove('visible'), 4000);
}

function renderAccount() {
  const me = session.account();
  if (!me) {
    accountBox.replaceChildren();
    return;
  }
  replace(accountBox, h('span', { class: 'who' }, 'Signed in as ', h('strong', { text: me.username })),
    button('Sign out', async () => {
      await api.signOut();
      start();
    }, 'link', { id: 'sign-out' }));
}

function signInView(notice) {
  stopRefresh();
  currentPage = null;
  const campusSlot = h('div', { id: 'campus-slot' });
  if (notice) campusSlot.append(h('p', { class: 'problem', role: 'alert', text: notice }));
  nav.replaceChildren();
  const username = field('Username', h('input', { name: 'username', autocomplete: 'username', required: true }));
  const password = field('Password', h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Sign in');
  const form = h('form', { class: 'card narrow', id: 'signin-form', novalidate: true }, username.wrap, password.wrap, slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const me = await busy(submit, slot, () => api.signIn(username.input.value.trim(), password.input.value), form);
    if (me) start();
  });
  const view = h('div', { class: 'view' }, h('h1', { text: 'Operator console' }),
    h('p', { class: 'lead', text: 'Sign in with an administrator or operator account.' }), campusSlot, form);
  replace(main, view);
  campusOffer().then((campus) => {
    const link = campusButton(campus, '/admin/');
    if (link) campusSlot.append(h('p', {}, link));
  });
  renderAccount();
  if (moveFocus) focusFirst(main);
  moveFocus = true;
}

function refusal(me) {
  stopRefresh();
  currentPage = null;
  nav.replaceChildren();
  replace(main, h('div', { class: 'view' },
    h('h1', { text: 'Operator console' }),
    h('div', { class: 'card refusal', role: 'alert', id: 'refusal' },
      h('h2', { text: 'Administrators and operators only' }),
      h('p', { text: `You are signed in as ${me.username}, a${me.role === 'instructor' ? 'n' : ''} ${me.role}. This console needs an administrator or operator account.` }),
      h('div', { class: 'actions' },
        h('a', { href: '/', class: 'btn btn-secondary' }, 'Go to the student app'),
        button('Sign in as someone else', async () => { await api.signOut(); start(); }, 'primary')))));
  renderAccount();
  if (moveFocus) focusFirst(main);
  moveFocus = true;
}

function stopRefresh() {
  clearInterval(timer);
  timer = null;
}

function routeOf(hash) {
  const match = String(hash || '').match(/^#\/([a-z-]*)/);
  const route = match ? match[1] : '';
  return PAGES.some((p) => p.route === route) ? route : '';
}

function consoleView() {
  const me = session.account();
  const page = PAGES.find((p) => p.route === routeOf(window.location.hash));
  currentPage = page;
  const acting = canAct(me);
  const panels = page.panels.filter((p) => me.role === 'admin' || !p.adminOnly);
  const single = panels.length === 1;
  const status = h('p', { class: 'muted refresh-status', id: 'refresh-status', 'aria-live': 'off' });
  const auto = h('input', { type: 'checkbox', id: 'auto-refresh', checked: !paused });
  const controls = h('div', { class: 'console-controls' },
    h('span', { class: 'field-check' }, auto, h('label', { for: 'auto-refresh', text: `Refresh every ${REFRESH_MS / 1000} s` })),
    button('Refresh now', () => refreshAll(), 'secondary', { id: 'refresh-now' }), status);
  const sections = panels.map((panel) => ({ panel, el: h('section', { class: single ? 'panel page-panel' : 'card panel', id: panel.id, 'aria-labelledby': `${panel.id}-title` }) }));
  replace(nav, h('ul', {}, PAGES.map((p) => h('li', {}, h('a', { href: p.route ? `#/${p.route}` : '#/', 'aria-current': p === page ? 'page' : null, dataset: { route: p.route || 'overview' } }, p.title)))));
  const readOnly = acting ? null : h('p', { class: 'warning', id: 'read-only', text: 'You may read the console but not act: this gateway does not let operators act (GATEWAY_OPERATOR_CAN_ACT).' });
  replace(main, h('div', { class: 'view', dataset: { page: page.route || 'overview' } },
    ...(single ? [] : [h('h1', { text: page.heading ?? page.title }), readOnly, controls]),
    single ? sections[0].el : h('div', { class: 'panels' }, sections.map((s) => s.el))));
  document.title = `${page.title} · Operator console · Campus Gateway`;
  const context = { toast, refresh: () => refreshAll(), canAct: acting, role: me.role, single };
  for (const { panel, el } of sections) panel.mount(el, context);
  // A page of one panel: its heading (an h1) comes first, then the refresh controls.
  if (single) sections[0].el.querySelector('.panel-head')?.after(...[readOnly, controls].filter(Boolean));

  async function refreshAll() {
    if (!session.token()) return start();
    if (currentPage !== page) return undefined;
    const results = await Promise.allSettled(sections.map(({ panel, el }) => panel.refresh(el, context)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed && failed.reason?.status === 401) return start();
    status.textContent = `Updated ${new Date().toLocaleTimeString()}${failed ? ` · some panels failed: ${failed.reason?.message}` : ''}`;
    return undefined;
  }
  auto.addEventListener('change', () => {
    stopRefresh();
    paused = !auto.checked;
    if (auto.checked) timer = setInterval(refreshAll, REFRESH_MS);
  });
  stopRefresh();
  refreshAll();
  if (auto.checked) timer = setInterval(refreshAll, REFRESH_MS);
  renderAccount();
  if (moveFocus) focusFirst(main);
  moveFocus = true;
}

async function start() {
  const campus = await finishCampusSignIn();
  if (campus?.error) return signInView(campus.error);
  if (!session.token()) return signInView();
  let me;
  try {
    me = await api.get('/v1/me');
    session.setAccount(me);
  } catch {
    return signInView();
  }
  if (!CONSOLE_ROLES.has(me.role)) return refusal(me);
  consoleView();
}

session.onChange((value) => { if (!value) signInView(); });
document.addEventListener('visibilitychange', () => {
  // Nothing polls while the tab is hidden; coming back refreshes at once.
  if (document.hidden) stopRefresh();
  else if (CONSOLE_ROLES.has(session.account()?.role) && document.getElementById('auto-refresh')?.checked && !timer) {
    document.getElementById('refresh-now')?.click();
    timer = setInterval(() => document.getElementById('refresh-now')?.click(), REFRESH_MS);
  }
});
// A route change redraws the page (in-page anchors, such as the skip link's #main, are no route).
window.addEventListener('hashchange', () => {
  if (!/^#\/|^$/.test(window.location.hash) || !CONSOLE_ROLES.has(session.account()?.role) || !session.token()) return;
  const route = routeOf(window.location.hash);
  if (currentPage && currentPage.route === route) return;
  consoleView();
});
// The page's keyboard shortcuts (the Jobs page has them).
document.addEventListener('keydown', (event) => {
  const panel = currentPage?.panels.find((p) => typeof p.key === 'function');
  if (panel && document.getElementById(panel.id) && panel.key(event)) event.preventDefault();
});
start();
