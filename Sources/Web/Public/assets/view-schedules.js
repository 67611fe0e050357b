// Saved schedules: the list, one schedule with its classes as they stand now and its week grid,
// a warning when it holds more classes than registration allows, its .ics download, its private
// subscription link (create, copy, revoke), who sees it and its share links (schedule-sharing.js),
// "Show friends" on its week grid (friends-overlay.js), rename and delete.
import { h, field, errorSlot, busy, append, replace, button, meetingText, when, download, showError } from './dom.js';
import * as api from './api.js';
import { friendsWeek } from './friends-overlay.js';
import { sharingSection } from './schedule-sharing.js';
import { feedControls } from './calendar-feed.js';
import { classLimitWarning, registrationSettings } from './registration-settings.js';

export async function renderSchedules(container, ctx) {
  const list = await api.get('/v1/me/schedules');
  if (!ctx.isCurrent()) return;
  const detail = h('section', { class: 'card schedule-detail', id: 'schedule-detail', 'aria-live': 'polite' });
  const selected = Number(ctx.params.get('id')) || list.items[0]?.id;
  const nav = h('nav', { class: 'card', 'aria-labelledby': 'saved-title' },
    h('h2', { id: 'saved-title', text: 'Your schedules' }),
    list.items.length ? h('ul', { class: 'plain-list' }, list.items.map((s) =>
      h('li', {}, h('a', { href: `#/schedules?id=${s.id}`, 'aria-current': s.id === selected ? 'true' : null },
        s.name), h('small', { class: 'muted', text: ` ${s.term} · ${s.classIds.length} classes${s.visibility === 'friends' ? ' · friends see it' : ''}` }))))
      : h('p', { class: 'muted' }, 'Nothing saved yet. ', h('a', { href: '#/builder' }, 'Build a schedule.')));
  append(container, [h('h1', { text: 'Saved schedules' }), h('div', { class: 'schedules-layout' }, nav, detail)]);
  if (selected) await showSchedule(detail, selected, ctx);
  else detail.hidden = true;
}

async function showSchedule(box, id, ctx) {
  const slot = errorSlot();
  let schedule;
  let settings;
  try {
    [schedule, settings] = await Promise.all([api.get(`/v1/me/schedules/${encodeURIComponent(id)}`), registrationSettings()]);
  } catch (error) {
    replace(box, h('h2', { text: 'Schedule' }), slot);
    showError(slot, error);
    return;
  }
  const entries = schedule.sections.filter((s) => s.class).map((s) => ({
    label: `${s.class.course}-${s.class.section}`, meetings: s.class.meetings,
  }));
  const rename = field('New name', h('input', { name: 'name', maxlength: 100, value: schedule.name }));
  const renameSlot = errorSlot();
  const renameForm = h('form', { class: 'row row-end', novalidate: true }, rename.wrap, h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Rename'), renameSlot);
  renameForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const changed = await busy(renameForm.querySelector('button'), renameSlot, () => api.patch(`/v1/me/schedules/${schedule.id}`, { name: rename.input.value.trim() }), renameForm);
    if (changed) ctx.go(`schedules?id=${changed.id}`);
  });
  replace(box,
    h('h2', { id: 'schedule-title', text: schedule.name }),
    h('p', { class: 'muted', text: `${schedule.term} · saved ${when(schedule.createdAt)} · changed ${when(schedule.updatedAt)}` }),
    h('div', { class: 'actions' },
      button('Download .ics', (e) => busy(e.currentTarget, slot, async () => {
        const response = await api.call('GET', `/v1/me/schedules/${schedule.id}/calendar.ics`, { raw: true, headers: { accept: 'text/calendar' } });
        const name = `${schedule.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'schedule'}.ics`;
        download(await response.blob(), name);
        ctx.toast(`Downloaded ${name}.`);
      }), 'primary', { id: 'download-ics' }),
      button('Delete', (e) => busy(e.currentTarget, slot, async () => {
        if (!window.confirm(`Delete “${schedule.name}”?`)) return;
        await api.del(`/v1/me/schedules/${schedule.id}`);
        ctx.toast('Schedule deleted.');
        ctx.go('schedules');
      }), 'danger')),
    slot,
    classLimitWarning(schedule.sections.filter((s) => s.status !== 'removed').length, settings, 'schedule-limit-warning'),
    friendsWeek(entries, `Week grid of ${schedule.name}`, schedule.term, 'schedule-week'),
    h('h3', { text: 'Classes' }),
    h('ul', { class: 'plain-list' }, schedule.sections.map((s) => h('li', {},
      s.class ? h('strong', { text: `${s.class.course}-${s.class.section} ${s.class.title}` }) : h('strong', { text: `Class ${s.classId}` }),
      ` · ${statusText(s)}`,
      s.class ? h('ul', { class: 'meetings' }, s.class.meetings.map((m) => h('li', { text: meetingText(m) }))) : null))),
    h('section', { class: 'subscribe', 'aria-labelledby': 'schedule-feed-title' },
      h('h3', { id: 'schedule-feed-title', text: 'Subscribe in a calendar app' }),
      h('p', { text: 'A private link that always shows this schedule as it stands, for calendar apps that subscribe to a URL.' }),
      feedControls(`/v1/me/schedules/${schedule.id}/calendar-feed`, 'this schedule', 'schedule-feed')),
    sharingSection(schedule, ctx),
    h('details', {}, h('summary', { text: 'Rename' }), renameForm));
}

function statusText(section) {
  switch (section.status) {
    case 'open': return `${section.seats.open} of ${section.seats.capacity} seats open`;
    case 'full': return 'full';
    case 'waitlist': return `full, ${section.seats.waitlist} waiting`;
    case 'removed': return 'no longer in the catalog';
    default: return section.status;
  }
}
