// Grades: one "my grades" across every stored account (Cal Poly and Canvas alike), the stored
// accounts (add with a password or a Canvas access token, forget), a Cal Poly account's sections,
// and one section's assignments with the score that counts first.
import { h, field, errorSlot, busy, append, replace, button, when, showError, scrollRegion } from './dom.js';
import * as api from './api.js';

export async function renderGrades(container, ctx) {
  const [sources, accounts] = await Promise.all([
    api.get('/v1/gradebook/sources').then((r) => r.items),
    api.get('/v1/me/gradebook-accounts').then((r) => r.items),
  ]);
  if (!ctx.isCurrent()) return;
  const sourceName = (id) => sources.find((s) => s.id === id)?.name ?? `Source ${id}`;
  const browser = h('section', { class: 'card grades', id: 'grades', 'aria-live': 'polite' });
  const outcome = ctx.params?.get('canvas');
  append(container, [
    h('h1', { text: 'Grades' }),
    outcome ? h('p', { class: outcome === 'connected' ? 'note' : 'problem', role: 'status', id: 'canvas-outcome', text: outcomeText(outcome, ctx.params?.get('canvasUser')) }) : null,
    h('div', { class: 'grades-layout' },
      h('div', { class: 'stack' },
        accountsSection(accounts, sourceName, browser, ctx, (id) => (sources.find((s) => s.id === id)?.kind ?? 'calpoly') === 'calpoly'),
        addAccountForm(sources, ctx)),
      browser),
  ]);
  if (accounts.length) await showMyGrades(browser, sourceName, false);
  else replace(browser, h('h2', { text: 'My grades' }), h('p', { class: 'muted', text: 'Add a gradebook account to see your courses and scores.' }));
}

// Where the Canvas connection flow lands (`#/grades?canvas=...`).
const connectOutcome = {
  connected: 'Your Canvas account is connected.',
  'not-yours': 'That Canvas connection was started by another account, so nothing was connected and Canvas was told to forget it. Connect from your own account.',
  denied: 'Canvas was not allowed to share your grades; nothing was connected.',
  expired: 'The connection took too long or its link was not from here; start again.',
  'other-browser': 'The connection finished in another browser than the one that started it; start again here.',
  refused: 'Canvas refused the connection; start again.',
  exists: 'That Canvas account is connected already.',
  limit: 'You keep the most gradebook accounts allowed; forget one first.',
  unavailable: 'Canvas could not be reached; try again later.',
};

function outcomeText(outcome, canvasUser) {
  if (outcome === 'connected' && canvasUser) return `Your Canvas account is connected: ${canvasUser}.`;
  return connectOutcome[outcome] ?? `Canvas: ${outcome}`;
}

const statusText = {
  throttled: 'The gradebook is busy; showing the last grades read.',
  'credentials-refused': 'The gradebook refused the stored credentials; forget the account and add it again.',
  unavailable: 'The gradebook did not answer; showing the last grades read.',
  'vault-unavailable': 'The stored credentials could not be opened; ask an operator.',
};

const number = (value) => (value === null || value === undefined ? null : Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0+$/, ''));

// Every stored account's courses from GET /v1/me/grades, normalised whatever the source.
async function showMyGrades(box, sourceName, refresh) {
  const slot = errorSlot();
  replace(box, h('h2', { text: 'My grades' }), h('p', { class: 'muted', text: 'Loading…' }));
  let items;
  try {
    items = (await api.get('/v1/me/grades', refresh ? { refresh: 1 } : undefined)).items;
  } catch (error) {
    replace(box, h('h2', { text: 'My grades' }), slot);
    showError(slot, error);
    return;
  }
  const refreshButton = button('Refresh', () => showMyGrades(box, sourceName, true), 'secondary', { 'aria-label': 'Read every gradebook again' });
  replace(box, h('h2', { text: 'My grades' }), h('div', { class: 'actions' }, refreshButton),
    items.map((item) => h('section', { class: 'my-grades', 'aria-label': `Grades at ${sourceName(item.sourceId)}` },
      h('h3', { text: sourceName(item.sourceId) }),
      item.status !== 'ok' ? h('p', { class: 'note', role: 'status', text: statusText[item.status] ?? item.status }) : null,
      item.fetchedAt ? h('p', { class: 'muted', text: `Read ${when(item.fetchedAt)}` }) : null,
      item.courses.length ? item.courses.map(courseTable) : h('p', { class: 'muted', text: 'No course to show.' }))));
}

function courseTable(course) {
  const current = [number(course.currentScore) !== null ? `${number(course.currentScore)} %` : null, course.currentGrade].filter(Boolean).join(' · ');
  const title = `${course.code ? `${course.code} — ` : ''}${course.name}`;
  const caption = current ? `${title} (current: ${current})` : title;
  return scrollRegion(h('table', { class: 'data course-grades' },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {}, ['Assignment', 'Due', 'Score', 'State'].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, course.assignments.map((a) => h('tr', {},
      h('th', { scope: 'row', text: a.name }),
      h('td', { text: a.dueAt ? when(a.dueAt) : '—' }),
      h('td', { class: 'score', text: a.score === null ? '—' : `${number(a.score)}${a.pointsPossible !== null ? ` / ${number(a.pointsPossible)}` : ''}` }),
      h('td', { text: a.state.replace('_', ' ') }))))), caption, { className: 'table-scroll' });
}

function accountsSection(accounts, sourceName, browser, ctx, isCalPoly) {
  return h('section', { class: 'card', 'aria-labelledby': 'gb-accounts-title' },
    h('h2', { id: 'gb-accounts-title', text: 'Gradebook accounts' }),
    accounts.length ? h('ul', { class: 'plain-list' }, accounts.map((a) => {
      const slot = errorSlot();
      return h('li', {},
        h('p', {}, h('strong', { text: a.username }), ` at ${sourceName(a.sourceId)}`),
        h('div', { class: 'actions' },
          isCalPoly(a.sourceId)
            ? button('Show sections', () => showSections(browser, a, sourceName), 'secondary', { 'aria-label': `Show sections of ${a.username}` })
            : button('Show grades', () => showMyGrades(browser, sourceName, false), 'secondary', { 'aria-label': `Show grades of ${a.username}` }),
          button('Forget', (e) => busy(e.currentTarget, slot, async () => {
            await api.del(`/v1/me/gradebook-accounts/${a.id}`);
            ctx.toast('Gradebook account forgotten.');
            ctx.go('grades');
          }), 'danger', { 'aria-label': `Forget ${a.username}` })),
        slot);
    })) : h('p', { class: 'muted', text: 'No stored account yet.' }));
}

function addAccountForm(sources, ctx) {
  const source = field('Gradebook', h('select', { name: 'sourceId' }, sources.map((s) => h('option', { value: s.id }, s.name))));
  const username = field('Gradebook username', h('input', { name: 'username', autocomplete: 'off', required: true }));
  const password = field('Gradebook password', h('input', { name: 'password', type: 'password', autocomplete: 'off', required: true }),
    'Checked with the gradebook, then stored sealed; never shown again.');
  const token = field('Canvas access token', h('input', { name: 'accessToken', type: 'password', autocomplete: 'off' }),
    'Canvas: Account → Settings → New access token. Checked with Canvas, then stored sealed; never shown again.');
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Add account');
  const form = h('form', { class: 'card', novalidate: true, 'aria-labelledby': 'gb-add-title' },
    h('h2', { id: 'gb-add-title', text: 'Add a gradebook account' }), source.wrap, username.wrap, password.wrap, token.wrap, slot, submit);
  if (!sources.length) return h('p', { class: 'muted', text: 'No gradebook is connected to this gateway.' });
  const isCanvas = () => sources.find((s) => String(s.id) === source.input.value)?.kind === 'canvas';
  // A Canvas source takes an access token; a Cal Poly one a username and password.
  const show = (f, shown) => {
    f.wrap.hidden = !shown;
    f.wrap.style.display = shown ? '' : 'none';
    f.input.required = shown;
  };
  const showFields = () => {
    show(username, !isCanvas());
    show(password, !isCanvas());
    show(token, isCanvas());
  };
  // A Canvas with the campus's developer key: connect in the browser instead of pasting a token.
  const connect = h('button', { type: 'button', class: 'btn btn-secondary', id: 'canvas-connect' }, 'Connect with Canvas');
  const canConnect = () => sources.find((s) => String(s.id) === source.input.value)?.oauth === true;
  connect.addEventListener('click', () => busy(connect, slot, async () => {
    const { authorizationUrl } = await api.post('/v1/me/gradebook-accounts/oauth', { sourceId: Number(source.input.value) });
    window.location.assign(authorizationUrl);
  }));
  form.insertBefore(connect, token.wrap);
  const showConnect = () => { connect.hidden = !canConnect(); connect.style.display = canConnect() ? '' : 'none'; };
  source.input.addEventListener('change', () => { showFields(); showConnect(); });
  showFields();
  showConnect();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = isCanvas()
      ? { sourceId: Number(source.input.value), accessToken: token.input.value.trim() }
      : { sourceId: Number(source.input.value), username: username.input.value.trim(), password: password.input.value };
    const added = await busy(submit, slot, () => api.post('/v1/me/gradebook-accounts', body), form);
    if (added) {
      ctx.toast('Gradebook account added.');
      ctx.go('grades');
    }
  });
  return form;
}

async function showSections(box, account, sourceName) {
  const slot = errorSlot();
  replace(box, h('h2', { text: `Sections · ${account.username}` }), h('p', { class: 'muted', text: 'Loading…' }));
  let sections;
  try {
    sections = (await api.get(`/v1/gradebook/${account.sourceId}/sections`, { account: account.id })).items;
  } catch (error) {
    replace(box, h('h2', { text: `Sections · ${account.username}` }), slot);
    showError(slot, error);
    return;
  }
  const scores = h('div', { class: 'scores', 'aria-live': 'polite' });
  replace(box,
    h('h2', { text: `Sections · ${account.username} at ${sourceName(account.sourceId)}` }),
    sections.length ? h('ul', { class: 'plain-list section-list' }, sections.map((s) => h('li', {},
      button(`${s.department} ${s.course} — ${s.title}`, () => showAssignments(scores, account, s), 'link', { 'aria-label': `Scores in ${s.department} ${s.course}` }),
      h('small', { class: 'muted', text: ` ${s.termName}` })))) : h('p', { class: 'muted', text: 'This account sees no section.' }),
    scores);
}

async function showAssignments(box, account, section) {
  const slot = errorSlot();
  replace(box, h('h3', { text: `${section.department} ${section.course} ${section.title}` }), h('p', { class: 'muted', text: 'Loading…' }));
  let items;
  try {
    const path = `/v1/gradebook/${account.sourceId}/sections/${encodeURIComponent(section.term)}/${encodeURIComponent(section.course)}/enrollments/${encodeURIComponent(account.username)}/assignments`;
    items = (await api.get(path, { account: account.id })).items;
  } catch (error) {
    replace(box, h('h3', { text: `${section.department} ${section.course}` }), slot);
    showError(slot, error);
    return;
  }
  const caption = `Assignments in ${section.department} ${section.course} (${section.termName})`;
  const table = h('table', { class: 'data' },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {}, ['Assignment', 'Due', 'Score that counts', 'Other scores'].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, items.map((a) => {
      const counting = a.scores.find((s) => s.counts) ?? null;
      const others = a.scores.filter((s) => s !== counting);
      const max = a.maxPoints !== undefined ? ` / ${a.maxPoints}` : '';
      return h('tr', {},
        h('th', { scope: 'row' }, a.name, a.extraCreditAllowed ? h('small', { class: 'muted', text: ' (extra credit)' }) : null),
        h('td', { text: a.dueAt ? when(a.dueAt) : '—' }),
        h('td', { class: 'score' }, counting ? `${counting.displayScore}${/^\d+(\.\d+)?$/.test(String(counting.displayScore)) ? max : ''}` : '—'),
        h('td', { text: others.map((s) => `${s.displayScore}${s.postedAt ? ` (${when(s.postedAt)})` : ''}`).join(', ') || '—' }));
    })));
  replace(box, h('h3', { text: `${section.department} ${section.course} ${section.title}` }),
    items.length ? scrollRegion(table, caption, { className: 'table-scroll' }) : h('p', { class: 'muted', text: 'No assignments yet.' }));
}
