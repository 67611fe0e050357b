// A schedule someone shared by link (`/shared/{token}`), for anyone who holds the link, signed in
// or not: its week grid, who shared it (their display name, as text: it is their input), "add to
// my calendar" (the link's .ics) and, for a signed-in student,
// "save a copy" into their own schedules. The token stays in this page's address: the page sends
// no referrer, and the gateway's access log redacts it.
import * as api from './api.js';
import { busy, button, errorSlot, h, replace, showError } from './dom.js';
import { token as sessionToken } from './session.js';
import { weekGrid } from './weekgrid.js';

const main = document.getElementById('main');
// An address that is not valid percent-encoding names no link: the API answers it as any unknown one.
function tokenOf(path) {
  const raw = path.replace(/^\/shared\//, '').replace(/\/+$/, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

const secret = tokenOf(window.location.pathname);
const address = `/v1/shared/schedules/${encodeURIComponent(secret)}`;

async function show() {
  const slot = errorSlot();
  let schedule;
  try {
    schedule = await api.get(address);
  } catch (error) {
    replace(main, h('h1', { text: 'Shared schedule' }), slot);
    showError(slot, error);
    return;
  }
  const entries = schedule.sections.filter((s) => s.class).map((s) => ({
    label: `${s.class.course}-${s.class.section}`, meetings: s.class.meetings,
  }));
  const actions = h('div', { class: 'actions' },
    h('a', { class: 'btn btn-secondary', id: 'shared-calendar', href: `${address}/calendar.ics`, download: '' }, 'Add to my calendar'));
  if (sessionToken()) {
    actions.append(button('Save a copy', (event) => busy(event.currentTarget, slot, async () => {
      const copy = await api.post('/v1/me/schedules', { fromShared: secret });
      window.location.assign(`/#/schedules?id=${copy.id}`);
    }), 'primary', { id: 'save-copy' }));
  } else {
    actions.append(h('a', { class: 'btn btn-primary', id: 'sign-in-to-copy', href: '/#/signin' }, 'Sign in to save a copy'));
  }
  const removed = schedule.sections.filter((s) => !s.class).length;
  replace(main,
    h('h1', { id: 'shared-title', text: schedule.name }),
    h('p', { class: 'muted', id: 'shared-by', text: `${schedule.term} · shared with you ${schedule.ownerDisplayName ? `by ${schedule.ownerDisplayName}` : 'by link'}` }),
    actions,
    slot,
    removed ? h('p', { class: 'muted', text: `${removed} of its classes left the catalog.` }) : null,
    weekGrid(entries, `Week grid of ${schedule.name}`));
}

show();
