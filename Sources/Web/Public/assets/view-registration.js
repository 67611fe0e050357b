// My classes: the student profile, registration eligibility per term, enrollments (drop, or swap
// for another class in one step), waitlist places (leave), seat offers (accept or decline), the
// registration calendar and its subscription link.
import { h, field, errorSlot, busy, append, replace, button, meetingText, when, download, showError } from './dom.js';
import * as api from './api.js';
import { friendsWeek } from './friends-overlay.js';
import { feedControls } from './calendar-feed.js';
import { policyText, registrationSettings } from './registration-settings.js';
import { eligibilitySection } from './eligibility-status.js';

export async function renderRegistration(container, ctx) {
  append(container, [h('h1', { text: 'My classes' })]);
  const body = h('div', { class: 'stack' });
  container.append(body);
  await refresh(body, ctx);
}

async function refresh(body, ctx) {
  const [schedule, settings, eligibility] = await Promise.all([api.get('/v1/me/registration'), registrationSettings(), eligibilitySection()]);
  if (!ctx.isCurrent()) return;
  const reload = () => refresh(body, ctx);
  replace(body,
    profileSection(schedule.profile, reload),
    eligibility,
    offersSection(schedule.offers, reload, ctx),
    enrollmentsSection(schedule, reload, ctx),
    waitlistSection(schedule, settings, reload, ctx),
    calendarSection());
}

function classLabel(entry) {
  const c = entry.class;
  return c ? `${c.course}-${c.section} ${c.title}` : `Class ${entry.classId}`;
}

function profileSection(profile, reload) {
  const section = h('section', { class: 'card', 'aria-labelledby': 'profile-title' });
  const redId = field('Red ID', h('input', { name: 'redId', inputmode: 'numeric', pattern: '[0-9]{9}', maxlength: 9, required: true, value: profile?.redId ?? '' }), '9 digits.');
  const first = field('First name', h('input', { name: 'firstName', autocomplete: 'given-name', required: true, value: profile?.firstName ?? '' }));
  const last = field('Last name', h('input', { name: 'lastName', autocomplete: 'family-name', required: true, value: profile?.lastName ?? '' }));
  const email = field('Email', h('input', { name: 'email', type: 'email', autocomplete: 'email', required: true, value: profile?.email ?? '' }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, profile ? 'Save profile' : 'Create profile');
  const form = h('form', { id: 'profile-form', novalidate: true }, h('div', { class: 'row' }, redId.wrap, email.wrap), h('div', { class: 'row' }, first.wrap, last.wrap), slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const saved = await busy(submit, slot, () => api.put('/v1/me/registration/profile', {
      redId: redId.input.value.trim(), firstName: first.input.value.trim(), lastName: last.input.value.trim(), email: email.input.value.trim(),
    }), form);
    if (saved) reload();
  });
  if (profile) {
    const details = h('details', {}, h('summary', { text: 'Edit profile' }), form);
    append(section, [h('h2', { id: 'profile-title', text: 'Student profile' }),
      h('p', { text: `${profile.firstName} ${profile.lastName} · Red ID ${profile.redId} · ${profile.email}` }), details]);
  } else {
    append(section, [h('h2', { id: 'profile-title', text: 'Student profile' }),
      h('p', { text: 'Registering for classes needs a student profile.' }), form]);
  }
  return section;
}

function offersSection(offers, reload, ctx) {
  if (!offers?.length) return null;
  return h('section', { class: 'card highlight', 'aria-labelledby': 'offers-title' },
    h('h2', { id: 'offers-title', text: 'Seats offered to you' }),
    h('ul', { class: 'plain-list', id: 'offers' }, offers.map((offer) => {
      const slot = errorSlot();
      return h('li', {},
        h('p', {}, h('strong', { text: classLabel(offer) }), ` — offered ${when(offer.offeredAt)}, expires ${when(offer.expiresAt)}`),
        h('div', { class: 'actions' },
          button('Accept seat', (e) => busy(e.currentTarget, slot, async () => {
            await api.post(`/v1/me/registration/offers/${offer.classId}/claim`);
            ctx.toast('Seat accepted: you are registered.');
            reload();
          }), 'primary', { 'aria-label': `Accept the seat in ${classLabel(offer)}`, dataset: { action: 'accept-offer', classId: offer.classId } }),
          button('Decline', (e) => busy(e.currentTarget, slot, async () => {
            await api.del(`/v1/me/registration/offers/${offer.classId}`);
            reload();
          }), 'secondary', { 'aria-label': `Decline the seat in ${classLabel(offer)}` })),
        slot);
    })));
}

function enrollmentsSection(schedule, reload, ctx) {
  const enrollments = schedule.enrollments || [];
  return h('section', { class: 'card', 'aria-labelledby': 'enrolled-title' },
    h('h2', { id: 'enrolled-title', text: `Registered (${enrollments.length} of ${schedule.classLimit})` }),
    enrollments.length ? h('ul', { class: 'plain-list', id: 'enrollments' }, enrollments.map((entry) => {
      const slot = errorSlot();
      return h('li', { dataset: { classId: entry.classId } },
        h('p', {}, h('strong', { text: classLabel(entry) })),
        h('ul', { class: 'meetings' }, (entry.class?.meetings || []).map((m) => h('li', { text: meetingText(m) }))),
        h('div', { class: 'actions' }, button('Drop', (e) => busy(e.currentTarget, slot, async () => {
          if (!window.confirm(`Drop ${classLabel(entry)}?`)) return;
          await api.del(`/v1/me/registration/enrollments/${entry.classId}`);
          ctx.toast('Class dropped.');
          reload();
        }), 'danger', { 'aria-label': `Drop ${classLabel(entry)}` })),
        swapForm(entry, slot, reload, ctx),
        slot);
    })) : h('p', { class: 'muted' }, 'No classes yet. ', h('a', { href: '#/catalog' }, 'Find one in the catalog.')),
    enrollments.length ? friendsWeek(enrollments.filter((e) => e.class).map((e) => ({ label: `${e.class.course}-${e.class.section}`, meetings: e.class.meetings })),
      'Your week', enrollments.find((e) => e.class?.term)?.class.term, 'registration-week') : null);
}

/** "Swap": drop this class and take another in one step, or neither. A refusal shows every reason
 * in the entry's `slot`; a full class can be waited for instead, this one dropped when its seat comes. */
function swapForm(entry, slot, reload, ctx) {
  const label = classLabel(entry);
  const add = field('Class id to take instead', h('input', { name: 'add', inputmode: 'numeric', pattern: '[0-9]*', maxlength: 12, autocomplete: 'off', required: true, placeholder: 'e.g. 7001' }));
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary', 'aria-label': `Swap ${label} for the class entered` }, 'Swap');
  const form = h('form', { class: 'swap-form row row-end', novalidate: true, 'aria-label': `Swap ${label} for another class`, dataset: { action: 'swap' } }, add.wrap, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const classId = Number(add.input.value.trim());
    if (!/^[0-9]{1,12}$/.test(add.input.value.trim()) || classId <= 0) {
      showError(slot, { problem: { title: 'No class id', detail: 'Enter the id of the class to take instead (a number, e.g. 7001).', invalidFields: ['add'] } }, form);
      add.input.focus();
      return;
    }
    let refusal = null;
    const swapped = await busy(submit, slot, async () => {
      try {
        return await api.post('/v1/me/registration/swap', { drop: entry.classId, add: classId });
      } catch (error) {
        refusal = error;
        throw error;
      }
    }, form);
    if (swapped) {
      ctx.toast(`Swapped ${label} for class ${classId}.`);
      reload();
    } else if (isFull(refusal)) {
      slot.lastElementChild?.append(h('div', { class: 'actions' }, button('Join its waitlist instead', (e) => busy(e.currentTarget, slot, async () => {
        const place = await api.post('/v1/me/registration/waitlist', { classId, dropIfEnrolled: entry.classId });
        ctx.toast(`On the waitlist of class ${classId} at position ${place.position}; ${label} is dropped when the seat comes.`);
        reload();
      }), 'secondary', { 'aria-label': `Join the waitlist of class ${classId}, dropping ${label} when a seat comes`, dataset: { action: 'waitlist-swap' } })));
    }
  });
  return h('details', { class: 'swap' }, h('summary', { text: 'Swap for another class' }), form);
}

/** A refusal because the class is full (alone, or among other reasons). */
function isFull(error) {
  const problem = error?.problem;
  if (!problem) return false;
  return String(problem.type ?? '').endsWith('class-full') || (Array.isArray(problem.reasons) && problem.reasons.some((r) => r?.rule === 'class-full'));
}

function waitlistSection(schedule, settings, reload, ctx) {
  const waitlist = schedule.waitlist;
  const policy = policyText({ ...settings, waitlistPolicy: schedule.waitlistPolicy });
  return h('section', { class: 'card', 'aria-labelledby': 'waitlist-title' },
    h('h2', { id: 'waitlist-title', text: 'Waitlists' }),
    policy ? h('p', { class: 'muted', id: 'waitlist-policy', text: policy }) : null,
    waitlist?.length ? h('ul', { class: 'plain-list' }, waitlist.map((entry) => {
      const slot = errorSlot();
      const dropping = entry.dropIfEnrolled ? (schedule.enrollments || []).find((e) => e.classId === entry.dropIfEnrolled) : null;
      return h('li', { dataset: { classId: entry.classId } },
        h('p', {}, h('strong', { text: classLabel(entry) }), ` — position ${entry.position}, joined ${when(entry.joinedAt)}`),
        entry.dropIfEnrolled ? h('p', { class: 'muted drop-if-enrolled', text: `When its seat comes to you, ${dropping ? classLabel(dropping) : `class ${entry.dropIfEnrolled}`} is dropped in the same step.` }) : null,
        h('div', { class: 'actions' }, button('Leave waitlist', (e) => busy(e.currentTarget, slot, async () => {
          await api.del(`/v1/me/registration/waitlist/${entry.classId}`);
          ctx.toast('Left the waitlist.');
          reload();
        }), 'secondary', { 'aria-label': `Leave the waitlist of ${classLabel(entry)}` })),
        slot);
    })) : h('p', { class: 'muted', text: 'You are on no waitlist.' }));
}

function calendarSection() {
  const slot = errorSlot();
  return h('section', { class: 'card', 'aria-labelledby': 'calendar-title' },
    h('h2', { id: 'calendar-title', text: 'Calendar' }),
    h('p', { text: 'Your registered classes as an iCalendar file, or a private link your calendar app can subscribe to.' }),
    h('div', { class: 'actions' },
      button('Download .ics', (e) => busy(e.currentTarget, slot, async () => {
        const response = await api.call('GET', '/v1/me/registration/calendar.ics', { raw: true, headers: { accept: 'text/calendar' } });
        download(await response.blob(), 'registration.ics');
      }), 'secondary')),
    slot,
    feedControls('/v1/me/calendar-feed', 'your classes', 'registration-feed'));
}
