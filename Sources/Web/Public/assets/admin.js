// The operator console: sign in (admins only), then every panel, refreshed in place.
import { h, replace, append, field, errorSlot, busy, button, focusFirst } from './dom.js';
import * as api from './api.js';
import * as session from './session.js';
import { panels } from './admin-panels.js';
import { campusOffer, campusButton, finishCampusSignIn } from './campus-signin.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const accountBox = document.getElementById('account');
const toastBox = document.getElementById('toast');
const REFRESH_MS = 5000;
let timer = null;
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
    h('p', { class: 'lead', text: 'Sign in with an administrator account.' }), campusSlot, form);
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
  nav.replaceChildren();
  replace(main, h('div', { class: 'view' },
    h('h1', { text: 'Operator console' }),
    h('div', { class: 'card refusal', role: 'alert', id: 'refusal' },
      h('h2', { text: 'Administrators only' }),
      h('p', { text: `You are signed in as ${me.username}, a${me.role === 'instructor' ? 'n' : ''} ${me.role}. This console needs an administrator account.` }),
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

function consoleView() {
  const status = h('p', { class: 'muted refresh-status', id: 'refresh-status', 'aria-live': 'off' });
  const auto = h('input', { type: 'checkbox', id: 'auto-refresh', checked: true });
  const controls = h('div', { class: 'console-controls' },
    h('span', { class: 'field-check' }, auto, h('label', { for: 'auto-refresh', text: `Refresh every ${REFRESH_MS / 1000} s` })),
    button('Refresh now', () => refreshAll(), 'secondary', { id: 'refresh-now' }), status);
  const sections = panels.map((panel) => ({ panel, el: h('section', { class: 'card panel', id: panel.id, 'aria-labelledby': `${panel.id}-title` }) }));
  replace(nav, h('ul', {}, panels.map((p) => h('li', {}, h('a', { href: `#${p.id}` }, p.title)))));
  replace(main, h('div', { class: 'view' }, h('h1', { text: 'Operator console' }), controls, h('div', { class: 'panels' }, sections.map((s) => s.el))));
  const context = { toast, refresh: () => refreshAll() };
  for (const { panel, el } of sections) panel.mount(el, context);

  async function refreshAll() {
    if (!session.token()) return start();
    const results = await Promise.allSettled(sections.map(({ panel, el }) => panel.refresh(el, context)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed && failed.reason?.status === 401) return start();
    status.textContent = `Updated ${new Date().toLocaleTimeString()}${failed ? ` · some panels failed: ${failed.reason?.message}` : ''}`;
  }
  auto.addEventListener('change', () => {
    stopRefresh();
    if (auto.checked) timer = setInterval(refreshAll, REFRESH_MS);
  });
  refreshAll();
  timer = setInterval(refreshAll, REFRESH_MS);
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
  if (me.role !== 'admin') return refusal(me);
  consoleView();
}

session.onChange((value) => { if (!value) signInView(); });
document.addEventListener('visibilitychange', () => {
  // Nothing polls while the tab is hidden; coming back refreshes at once.
  if (document.hidden) stopRefresh();
  else if (session.account()?.role === 'admin' && document.getElementById('auto-refresh')?.checked && !timer) {
    document.getElementById('refresh-now')?.click();
    timer = setInterval(() => document.getElementById('refresh-now')?.click(), REFRESH_MS);
  }
});
start();
