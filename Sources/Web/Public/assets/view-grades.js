// Grades: one "my grades" across every stored account (Cal Poly, Canvas and Moodle alike), the
// stored accounts (add with a password, a Canvas access token, or Moodle's either; forget), a
// Cal Poly account's sections, and one section's assignments with the score that counts first.
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

// Why a source lists a course without grades (Moodle).
const withheldText = {
  'not-permitted': 'This course does not let you view grades through the app.',
  'hidden-by-teacher': 'The teacher does not show this course\'s gradebook to students.',
};

function courseTable(course) {
  if (course.gradesWithheld) {
    const title = `${course.code ? `${course.code} — ` : ''}${course.name}`;
    return h('div', { class: 'course-withheld' }, h('h4', { text: title }),
      h('p', { class: 'muted', text: withheldText[course.gradesWithheld] ?? 'No grades are shown for this course.' }));
  }
  const withFeedback = course.assignments.some((a) => a.feedback);
  const current = [number(course.currentScore) !== null ? `${number(course.currentScore)} %` : null, course.currentGrade].filter(Boolean).join(' · ');
  const title = `${course.code ? `${course.code} — ` : ''}${course.name}`;
  const caption = current ? `${title} (current: ${current})` : title;
  return scrollRegion(h('table', { class: 'data course-grades' },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {}, ['Assignment', 'Due', 'Score', 'State', ...(withFeedback ? ['Feedback'] : [])].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, course.assignments.map((a) => h('tr', {},
      h('th', { scope: 'row', text: a.name }),
      h('td', { text: a.dueAt ? when(a.dueAt) : '—' }),
      h('td', { class: 'score', text: a.score === null ? '—' : `${number(a.score)}${a.pointsPossible !== null ? ` / ${number(a.pointsPossible)}` : ''}` }),
      h('td', { text: a.state.replace('_', ' ') }),
      withFeedback ? h('td', { text: a.feedback ?? '—' }) : null)))), caption, { className: 'table-scroll' });
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
  // Moodle takes either: the student's username and password (exchanged once for a token;
  // the password is not kept), or a token the Moodle app's single sign-on handed out.
  const moodleWay = field('Connect with', h('select', { name: 'moodleWay' },
    h('option', { value: 'password' }, 'My Moodle username and password'),
    h('option', { value: 'token' }, 'A token from the Moodle app (single sign-on campuses)')));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Add account');
  const form = h('form', { class: 'card', novalidate: true, 'aria-labelledby': 'gb-add-title' },
    h('h2', { id: 'gb-add-title', text: 'Add a gradebook account' }), source.wrap, moodleWay.wrap, username.wrap, password.wrap, token.wrap, slot, submit);
  if (!sources.length) return h('p', { class: 'muted', text: 'No gradebook is connected to this gateway.' });
  const kind = () => sources.find((s) => String(s.id) === source.input.value)?.kind;
  const isCanvas = () => kind() === 'canvas';
  const isMoodle = () => kind() === 'moodle';
  // Whether the form sends a token: always for Canvas, when chosen for Moodle.
  const sendsToken = () => isCanvas() || (isMoodle() && moodleWay.input.value === 'token');
  const tokenLabel = token.wrap.querySelector('label');
  const tokenHint = token.wrap.querySelector('small, .hint');
  // A Canvas source takes an access token; a Cal Poly one a username and password.
  const show = (f, shown) => {
    f.wrap.hidden = !shown;
    f.wrap.style.display = shown ? '' : 'none';
    f.input.required = shown;
  };
  const showFields = () => {
    show(moodleWay, isMoodle());
    moodleWay.input.required = false;
    show(username, !sendsToken());
    show(password, !sendsToken());
    show(token, sendsToken());
    if (tokenLabel) tokenLabel.textContent = isMoodle() ? 'Moodle token' : 'Canvas access token';
    if (tokenHint) {
      tokenHint.textContent = isMoodle()
        ? 'The web-service token your campus\'s Moodle app sign-in gives. Checked with Moodle, then stored sealed; never shown again.'
        : 'Canvas: Account → Settings → New access token. Checked with Canvas, then stored sealed; never shown again.';
    }
  };
  const passwordHint = password.wrap.querySelector('small, .hint');
  const showPasswordHint = () => {
    if (passwordHint) {
      passwordHint.textContent = isMoodle()
        ? 'Exchanged once with Moodle for a token, which is stored sealed; the password is not kept.'
        : 'Checked with the gradebook, then stored sealed; never shown again.';
    }
  };
  moodleWay.input.addEventListener('change', showFields);
  source.input.addEventListener('change', showPasswordHint);
  showPasswordHint();
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
    const body = sendsToken()
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
