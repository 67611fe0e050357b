// The catalog: search and filter classes (every filter the API offers), page through them, and
// register, join a waitlist, check whether the student may register (a dry run), watch a class or
// any section of its course for a seat, or send a course to the schedule builder. A class friends
// take says how many, and who.
import { h, field, errorSlot, busy, append, replace, button, meetingText, showNote, showError, uid } from './dom.js';
import * as api from './api.js';
import * as session from './session.js';
import { addCourseToBuilder } from './builder-state.js';
import { checkClass } from './eligibility-status.js';

const DAYS = [['mon', 'Mon'], ['tue', 'Tue'], ['wed', 'Wed'], ['thu', 'Thu'], ['fri', 'Fri'], ['sat', 'Sat']];
// Kept while the tab lives, so coming back to the catalog shows the same search.
const state = { filters: { limit: '20' }, cursors: [null], page: 0 };

export async function renderCatalog(container, ctx) {
  const [subjects, terms] = await Promise.all([
    api.get('/v1/registration/subjects').then((r) => r.items).catch(() => []),
    api.get('/v1/terms').then((r) => r.items).catch(() => []),
  ]);
  const results = h('section', { class: 'results', 'aria-labelledby': 'results-title', 'aria-busy': 'false' });
  const form = filterForm(subjects, terms, () => search(results, ctx, true));
  append(container, [
    h('h1', { text: 'Catalog' }),
    await linkedClass(ctx),
    h('div', { class: 'catalog-layout' }, form, results),
  ]);
  await search(results, ctx, false);
}

function filterForm(subjects, terms, onSearch) {
  const f = state.filters;
  const q = field('Search titles and descriptions', h('input', { name: 'q', type: 'search', value: f.q ?? '', maxlength: 200, placeholder: 'e.g. operating systems' }));
  const subject = field('Subject', h('select', { name: 'subject' },
    h('option', { value: '' }, 'Any subject'),
    subjects.map((s) => h('option', { value: s.code, selected: f.subject === s.code }, `${s.code} — ${s.title}`))));
  const level = field('Level', h('select', { name: 'level' },
    [['', 'Any level'], ['lower', 'Lower division'], ['upper', 'Upper division'], ['graduate', 'Graduate']]
      .map(([value, label]) => h('option', { value, selected: (f.level ?? '') === value }, label))));
  const term = field('Term', h('select', { name: 'term' },
    h('option', { value: '' }, 'Any term'),
    terms.map((t) => h('option', { value: t.id, selected: f.term === t.id }, t.name || t.id))));
  const chosenDays = new Set((f.days ?? '').split(',').filter(Boolean));
  const days = h('fieldset', { class: 'days' }, h('legend', { text: 'Meets only on' }),
    DAYS.map(([value, label]) => {
      const id = uid('day');
      return h('span', { class: 'day-check' },
        h('input', { type: 'checkbox', id, name: 'days', value, checked: chosenDays.has(value) }),
        h('label', { for: id, text: label }));
    }));
  const starts = field('Starts at or after', h('input', { name: 'startsAtOrAfter', type: 'time', value: f.startsAtOrAfter ?? '' }));
  const ends = field('Ends at or before', h('input', { name: 'endsAtOrBefore', type: 'time', value: f.endsAtOrBefore ?? '' }));
  const instructor = field('Instructor', h('input', { name: 'instructor', value: f.instructor ?? '', autocomplete: 'off' }));
  const open = field('Only classes with an open seat', h('input', { name: 'open', type: 'checkbox', checked: f.open === 'true' }));
  const limit = field('Per page', h('select', { name: 'limit' },
    ['10', '20', '50'].map((n) => h('option', { value: n, selected: (f.limit ?? '20') === n }, n))));
  const slot = errorSlot();
  slot.id = 'catalog-error';
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Search');
  const reset = h('button', { type: 'reset', class: 'btn btn-secondary' }, 'Clear');
  const form = h('form', { class: 'card filters', id: 'catalog-filters', role: 'search', 'aria-label': 'Class search' },
    q.wrap, h('div', { class: 'row' }, subject.wrap, level.wrap), open.wrap,
    h('details', { class: 'more-filters', open: Boolean(f.term || f.days || f.startsAtOrAfter || f.endsAtOrBefore || f.instructor) || window.matchMedia('(min-width: 761px)').matches },
      h('summary', { text: 'Term, days, times and instructor' }),
      term.wrap, days, h('div', { class: 'row' }, starts.wrap, ends.wrap), instructor.wrap),
    limit.wrap, slot,
    h('div', { class: 'actions' }, submit, reset));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    state.filters = {
      q: data.get('q')?.trim(), subject: data.get('subject'), level: data.get('level'), term: data.get('term'),
      days: data.getAll('days').join(','), startsAtOrAfter: data.get('startsAtOrAfter'), endsAtOrBefore: data.get('endsAtOrBefore'),
      instructor: data.get('instructor')?.trim(), open: data.get('open') ? 'true' : '', limit: data.get('limit'),
    };
    state.cursors = [null];
    state.page = 0;
    onSearch();
  });
  form.addEventListener('reset', () => {
    state.filters = { limit: '20' };
    state.cursors = [null];
    state.page = 0;
    setTimeout(onSearch, 0);
  });
  return form;
}

async function search(results, ctx, announce) {
  results.setAttribute('aria-busy', 'true');
  const slot = document.getElementById('catalog-error');
  const form = document.getElementById('catalog-filters');
  let page;
  try {
    page = await api.get('/v1/registration/classes', { ...state.filters, cursor: state.cursors[state.page] });
  } catch (error) {
    results.setAttribute('aria-busy', 'false');
    showError(slot, error, form);
    replace(results, h('h2', { id: 'results-title', text: 'Classes' }), h('p', { class: 'muted', text: 'No results: fix the search above.' }));
    return;
  }
  if (slot) slot.replaceChildren();
  if (!ctx.isCurrent()) return;
  const items = page.items ?? [];
  state.cursors[state.page + 1] = page.nextCursor ?? null;
  const prev = button('Previous page', () => { state.page -= 1; search(results, ctx, true); }, 'secondary', { disabled: state.page === 0 });
  const next = button('Next page', () => { state.page += 1; search(results, ctx, true); }, 'secondary', { disabled: !page.nextCursor });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Result pages' }, prev, h('span', { text: `Page ${state.page + 1}` }), next);
  replace(results,
    h('h2', { id: 'results-title', tabindex: '-1', text: items.length ? `Classes (page ${state.page + 1})` : 'No classes match' }),
    h('p', { class: 'visually-hidden', role: 'status', text: `${items.length} classes on page ${state.page + 1}${page.nextCursor ? '; more on the next page' : ''}.` }),
    items.length ? h('ol', { class: 'class-list' }, items.map((item) => h('li', {}, classCard(item, ctx)))) :
      h('p', { class: 'muted', text: 'Try fewer filters or other words.' }),
    pager);
  results.setAttribute('aria-busy', 'false');
  if (announce) results.querySelector('h2')?.focus();
}

/** The class a link names (`#/catalog?class=7036`, as seat alert texts link to it), shown first;
 * nothing when there is no such parameter or class. */
async function linkedClass(ctx) {
  const id = ctx.params?.get('class');
  if (!id || !/^[0-9]{1,12}$/.test(id)) return null;
  const item = await api.get(`/v1/registration/classes/${id}`).catch(() => null);
  if (!item || item.id === undefined) return null;
  return h('section', { class: 'card', id: 'linked-class', 'aria-labelledby': 'linked-class-title' },
    h('h2', { id: 'linked-class-title', text: 'The class from your alert' }), classCard(item, ctx));
}

/** One class with its meetings, seats and what the student can do with it. */
export function classCard(item, ctx) {
  const slot = errorSlot();
  const full = item.openSeats <= 0;
  const actions = h('div', { class: 'actions' });
  if (session.token()) {
    if (!full) {
      append(actions, [button('Register', (e) => act(e.currentTarget, slot, async () => {
        await api.post('/v1/me/registration/enrollments', { classId: item.id });
        showNote(slot, `Registered for ${item.course}-${item.section}.`);
        ctx.toast(`Registered for ${item.course}-${item.section}.`);
      }), 'primary', { 'aria-label': `Register for ${item.course} section ${item.section}`, dataset: { action: 'register', classId: item.id } })]);
    } else {
      append(actions, [button('Join waitlist', (e) => act(e.currentTarget, slot, async () => {
        const place = await api.post('/v1/me/registration/waitlist', { classId: item.id });
        showNote(slot, `On the waitlist at position ${place.position}.`);
      }), 'primary', { 'aria-label': `Join the waitlist of ${item.course} section ${item.section}`, dataset: { action: 'waitlist', classId: item.id } })]);
    }
    append(actions, [button('Check eligibility', (e) => act(e.currentTarget, slot, () => checkClass(item, slot)), 'secondary',
      { 'aria-label': `Check eligibility for ${item.course} section ${item.section}`, dataset: { action: 'check', classId: item.id } })]);
    append(actions, [watchMenu(item, slot)]);
  } else {
    append(actions, [h('a', { href: '#/signin', class: 'btn btn-secondary' }, 'Sign in to register')]);
  }
  append(actions, [button('Add course to builder', () => {
    addCourseToBuilder(item.course, item.term);
    showNote(slot, `${item.course} is in the schedule builder.`);
  }, 'link', { 'aria-label': `Add ${item.course} to the schedule builder` })]);

  const seats = full
    ? `Full · ${item.waitlist} waiting`
    : `${item.openSeats} of ${item.seats} seats open${item.waitlist ? ` · ${item.waitlist} waiting` : ''}`;
  return h('article', { class: 'class-card', dataset: { classId: item.id } },
    h('h3', {}, h('span', { class: 'course', text: `${item.course}-${item.section}` }), ' ', item.title),
    h('p', { class: 'meta' },
      [item.component, `${item.units} units`, `class ${item.id}`, `schedule #${item.scheduleNumber}`, item.term, (item.instructors || []).join(', ') || 'Staff']
        .filter(Boolean).join(' · ')),
    h('ul', { class: 'meetings' }, (item.meetings || []).map((m) => h('li', { text: meetingText(m) }))),
    h('p', { class: full ? 'seats seats-full' : 'seats', text: seats }),
    friendsInClass(item),
    actions, slot);
}

/** "1 friend" / "N friends" take this class (signed in only: the API adds `friendCount` and up to
 * 20 names), with the names; nothing when no friend does. */
function friendsInClass(item) {
  const count = Number(item.friendCount) || 0;
  if (count <= 0) return null;
  const names = (item.friends || []).map((f) => f.displayName).filter(Boolean);
  const more = count - names.length;
  const list = names.join(', ') + (more > 0 ? `${names.length ? ' and ' : ''}${more} more` : '');
  const label = `${count} ${count === 1 ? 'friend' : 'friends'}`;
  return h('p', { class: 'friend-count', dataset: { friendCount: count } },
    h('span', { class: 'badge', text: label, title: list }), ' ', h('span', { class: 'friend-names', text: `in this class: ${list}` }));
}

/** "Watch for a seat": this class, or any section of its course in its term. */
function watchMenu(item, slot) {
  const watch = (body, note) => (e) => act(e.currentTarget, slot, async () => {
    const alert = await api.post('/v1/me/seat-alerts', body);
    showNote(slot, `${note} (see Notifications): ${alert.watching}.`);
  });
  return h('details', { class: 'watch' },
    h('summary', { text: 'Watch for a seat' }),
    h('div', { class: 'actions tight' },
      button('This class', watch({ classId: item.id }, 'Watching this class for an open seat'), 'secondary',
        { 'aria-label': `Alert me when a seat opens in ${item.course} section ${item.section}`, dataset: { action: 'watch-class' } }),
      button(`Any section of ${item.course}`, watch({ term: item.term, subject: item.subject, courseNumber: item.courseNumber },
        `Watching every section of ${item.course} for an open seat`), 'secondary',
        { 'aria-label': `Alert me when a seat opens in any section of ${item.course} in ${item.term}`, dataset: { action: 'watch-course' } })));
}

async function act(control, slot, work) {
  await busy(control, slot, work);
}
