// Seat alerts: what each alert watches (a class, or any section of a course in a term), whether
// it is armed, and a form to watch a class or a course, told once or every time, and told
// again when the class is full.
import { h, field, errorSlot, busy, button, when, uid } from './dom.js';
import * as api from './api.js';

export function alertsSection(alerts, terms, ctx) {
  return h('section', { class: 'card', 'aria-labelledby': 'alerts-title' },
    h('h2', { id: 'alerts-title', text: 'Seat alerts' }),
    alerts.length ? h('ul', { class: 'plain-list', id: 'seat-alerts' }, alerts.map((a) => alertItem(a, ctx)))
      : h('p', { class: 'muted', text: 'You watch no class or course. Use “Watch for a seat” in the catalog, or add one here.' }),
    watchForm(terms, ctx));
}

function alertItem(a, ctx) {
  const slot = errorSlot();
  const what = a.watching || (a.kind === 'course' ? `any section of ${a.subject} ${a.courseNumber} in ${a.term}` : `class ${a.classId}`);
  const options = [
    a.armed ? 'watching' : 'told; resting until you watch again',
    a.rearm ? 'every time' : 'once',
    a.notifyClosed ? 'also when full again' : null,
    a.lastNotifiedAt ? `last told ${when(a.lastNotifiedAt)}` : null,
  ].filter(Boolean).join(' · ');
  return h('li', { dataset: { alertId: a.id, kind: a.kind } },
    h('p', {}, h('strong', { text: what }), h('span', { class: 'badge', text: a.kind === 'course' ? 'course' : 'class' })),
    h('p', { class: 'muted', text: options }),
    h('div', { class: 'actions' }, button('Stop watching', (e) => busy(e.currentTarget, slot, async () => {
      await api.del(`/v1/me/seat-alerts/${a.id}`);
      ctx.go('notifications');
    }), 'secondary', { 'aria-label': `Stop watching ${what}` })),
    slot);
}

function watchForm(terms, ctx) {
  const modeName = uid('mode');
  const radio = (value, label, checked) => {
    const id = uid('mode');
    return h('span', { class: 'day-check' }, h('input', { type: 'radio', name: modeName, id, value, checked }), h('label', { for: id, text: label }));
  };
  const mode = h('fieldset', { class: 'mode' }, h('legend', { text: 'Watch' }), radio('class', 'A class', true), radio('course', 'Any section of a course', false));
  const classId = field('Class id', h('input', { name: 'classId', inputmode: 'numeric' }), 'The class number the catalog shows (“class 7036”).');
  const term = field('Term', terms.length
    ? h('select', { name: 'term' }, terms.map((t, i) => h('option', { value: t.id, selected: i === terms.length - 1 }, t.name || t.id)))
    : h('input', { name: 'term' }));
  const subject = field('Subject', h('input', { name: 'subject', placeholder: 'CS', maxlength: 16 }));
  const number = field('Course number', h('input', { name: 'courseNumber', placeholder: '540', maxlength: 16 }));
  const courseFields = h('div', { class: 'row', hidden: true }, term.wrap, subject.wrap, number.wrap);
  const classFields = h('div', { class: 'row' }, classId.wrap);
  mode.addEventListener('change', () => {
    const course = mode.querySelector('input:checked')?.value === 'course';
    courseFields.hidden = !course;
    classFields.hidden = course;
  });
  const rearm = field('Tell me every time, not only once', h('input', { name: 'rearm', type: 'checkbox' }));
  const closed = field('Tell me when it is full again', h('input', { name: 'notifyClosed', type: 'checkbox' }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Watch');
  const form = h('form', { id: 'seat-alert-form', novalidate: true, 'aria-label': 'Watch for an open seat' },
    mode, classFields, courseFields, rearm.wrap, closed.wrap, submit, slot);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const options = { rearm: rearm.input.checked, notifyClosed: closed.input.checked };
    const body = classFields.hidden
      ? { term: term.input.value.trim(), subject: subject.input.value.trim().toUpperCase(), courseNumber: number.input.value.trim(), ...options }
      : { classId: Number(classId.input.value), ...options };
    const created = await busy(submit, slot, () => api.post('/v1/me/seat-alerts', body), form);
    if (created) {
      ctx.toast(`Watching ${created.watching}.`);
      ctx.go('notifications');
    }
  });
  return h('details', { class: 'sub-card' }, h('summary', { text: 'Watch a class or a course' }), form);
}
