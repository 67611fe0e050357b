// What the student's devices receive: the notification categories, quiet hours and the hourly
// budget (one set for all devices), and grade alerts per stored gradebook account.
import { h, field, errorSlot, busy, showNote } from './dom.js';
import * as api from './api.js';

const CATEGORIES = {
  'grade.new': 'A new grade is posted',
  'grade.changed': 'A grade changes',
  'seat.open': 'A seat opens in a class or course you watch',
  'seat.closed': 'A class you were told about is full again',
  'waitlist.offer': 'A seat is offered to you from a waitlist',
};

/** The categories of `switches` in the order above, then any the page doesn't know yet. */
function ordered(switches) {
  const known = Object.keys(CATEGORIES).filter((c) => c in switches);
  return [...known, ...Object.keys(switches).filter((c) => !(c in CATEGORIES)).sort()];
}

function label(category) {
  return CATEGORIES[category] ? `${CATEGORIES[category]} (${category})` : category;
}

export function preferencesSection(preferences) {
  const section = h('section', { class: 'card', 'aria-labelledby': 'prefs-title' },
    h('h2', { id: 'prefs-title', text: 'What your devices receive' }));
  if (!preferences) {
    section.append(h('p', { class: 'muted', text: 'Your notification preferences cannot be read right now.' }));
    return section;
  }
  const switches = ordered(preferences.categories).map((category) => {
    const input = h('input', { type: 'checkbox', name: 'categories', value: category, checked: preferences.categories[category] });
    return field(label(category), input);
  });
  const quiet = preferences.quietHours;
  const quietOn = field('Hold grade notifications during quiet hours', h('input', { type: 'checkbox', name: 'quietHours', checked: Boolean(quiet) }));
  const start = field('From', h('input', { type: 'time', name: 'quietHours.start', value: quiet?.start ?? '22:00' }));
  const end = field('To', h('input', { type: 'time', name: 'quietHours.end', value: quiet?.end ?? '07:00' }));
  const zone = field('Time zone', h('input', { name: 'quietHours.timeZone', value: quiet?.timeZone ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC') }));
  const perHour = field('At most this many an hour per device', h('input', { type: 'number', name: 'maxPerHour', min: 1, max: 600, value: preferences.maxPerHour, inputmode: 'numeric' }),
    'Past it, notifications wait for the next hour; none is dropped.');
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'prefs-save' }, 'Save preferences');
  const form = h('form', { id: 'prefs-form', novalidate: true, 'aria-labelledby': 'prefs-title' },
    h('fieldset', { class: 'switches' }, h('legend', { text: 'Send me a notification when' }), switches.map((s) => s.wrap),
      h('small', { class: 'hint', text: 'Always sent: a class of yours is cancelled, you are registered from a waitlist, and device tests.' })),
    h('fieldset', {}, h('legend', { text: 'Quiet hours and budget' }), quietOn.wrap, h('div', { class: 'row' }, start.wrap, end.wrap, zone.wrap), perHour.wrap,
      h('small', { class: 'hint', text: 'Seat openings and waitlist offers go at once whatever the hour.' })),
    slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = {
      categories: Object.fromEntries(switches.map((s) => [s.input.value, s.input.checked])),
      quietHours: quietOn.input.checked ? { start: start.input.value, end: end.input.value, timeZone: zone.input.value.trim() } : null,
      maxPerHour: Number(perHour.input.value) || preferences.maxPerHour,
    };
    const saved = await busy(submit, slot, () => api.put('/v1/me/push-preferences', body), form);
    if (saved) showNote(slot, 'Preferences saved.');
  });
  section.append(form);
  return section;
}

export function gradebookAlertsSection(accounts) {
  const section = h('section', { class: 'card', 'aria-labelledby': 'grade-alerts-title' },
    h('h2', { id: 'grade-alerts-title', text: 'Grade alerts per gradebook account' }));
  if (!accounts) {
    section.append(h('p', { class: 'muted', text: 'Grade alert settings cannot be read right now.' }));
    return section;
  }
  if (!accounts.length) {
    section.append(h('p', { class: 'muted' }, 'No stored gradebook account. ', h('a', { href: '#/grades' }, 'Add one in Grades'), ' to be told about new and changed grades.'));
    return section;
  }
  section.append(h('ul', { class: 'plain-list', id: 'grade-alerts' }, accounts.map(accountItem)));
  return section;
}

function accountItem(account) {
  const who = `${account.username} at ${account.sourceName}`;
  const enabled = field(`Grade alerts for ${who}`, h('input', { type: 'checkbox', name: 'enabled', checked: account.enabled }));
  const categories = ordered(account.categories).map((category) =>
    field(label(category), h('input', { type: 'checkbox', name: 'categories', value: category, checked: account.categories[category] })));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Save');
  const form = h('form', { novalidate: true, 'aria-label': `Grade alerts for ${who}` }, enabled.wrap,
    h('div', { class: 'switches' }, categories.map((c) => c.wrap)), slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const saved = await busy(submit, slot, () => api.put(`/v1/me/push-preferences/gradebook-accounts/${account.gradebookAccountId}`, {
      enabled: enabled.input.checked,
      categories: Object.fromEntries(categories.map((c) => [c.input.value, c.input.checked])),
    }), form);
    if (saved) showNote(slot, saved.enabled ? 'Saved: grade alerts are on for this account.' : 'Saved: this account sends no grade alerts.');
  });
  return h('li', { dataset: { gradebookAccountId: account.gradebookAccountId } }, form);
}
