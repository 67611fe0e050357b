// Sharing one saved schedule: who sees it (private, or the student's friends), and share links
// (create with an expiry, copy the address shown only then, list the live ones, revoke one).
// A link opens the web page `/shared/{token}` (shared.js), which anyone holding it may read.
import { h, errorSlot, busy, replace, button, when, copyText, showNote, showError, uid } from './dom.js';
import * as api from './api.js';

const EXPIRIES = [['1h', '1 hour'], ['1d', '1 day'], ['1w', '1 week'], ['never', 'Never (until revoked)']];

/** The visibility choice and the share links of `schedule` (as GET /v1/me/schedules/{id}). */
export function sharingSection(schedule, ctx) {
  return h('section', { class: 'subscribe sharing', 'aria-labelledby': 'schedule-sharing-title' },
    h('h3', { id: 'schedule-sharing-title', text: 'Sharing' }),
    visibilityControl(schedule, ctx),
    shareLinks(schedule, ctx));
}

function visibilityControl(schedule, ctx) {
  const slot = errorSlot();
  const name = uid('visibility');
  let current = schedule.visibility === 'friends' ? 'friends' : 'private';
  const choices = [['private', 'Only me'], ['friends', 'My friends']].map(([value, label]) => {
    const id = `${name}-${value}`;
    const input = h('input', { type: 'radio', name, id, value, checked: value === current, dataset: { visibility: value } });
    return { input, wrap: h('span', { class: 'day-check' }, input, h('label', { for: id, text: label })) };
  });
  const group = h('fieldset', { class: 'mode visibility', id: 'schedule-visibility' },
    h('legend', { text: 'Who sees this schedule' }), choices.map((c) => c.wrap));
  for (const { input } of choices) {
    input.addEventListener('change', async () => {
      if (!input.checked || input.value === current) return;
      const wanted = input.value;
      for (const c of choices) c.input.disabled = true;
      const saved = await busy(null, slot, () => api.patch(`/v1/me/schedules/${schedule.id}`, { visibility: wanted }));
      for (const c of choices) c.input.disabled = false;
      if (saved) {
        current = saved.visibility ?? wanted;
        showNote(slot, current === 'friends'
          ? 'Your friends now see this schedule (on their week view and class lists).'
          : 'Only you see this schedule now.');
        ctx.toast(current === 'friends' ? 'Shared with your friends.' : 'Schedule is private.');
      }
      for (const c of choices) c.input.checked = c.input.value === current;
    });
  }
  return h('div', {}, group, slot);
}

/** The web page a share link's API path names: `/v1/shared/schedules/{token}` → `/shared/{token}`. */
export function pageAddress(link) {
  const path = String(link.path ?? '').replace(/^\/v1\/shared\/schedules\//, '/shared/');
  return new URL(path, window.location.origin).href;
}

function shareLinks(schedule, ctx) {
  const slot = errorSlot();
  const endpoint = `/v1/me/schedules/${schedule.id}/share-links`;
  const fresh = h('div', { class: 'feed', id: 'share-link-new' });
  const list = h('div', { class: 'share-links', id: 'share-links' });
  const expiryId = uid('share-expiry');
  const expiry = h('select', { id: expiryId, name: 'expiresIn' },
    EXPIRIES.map(([value, label]) => h('option', { value, selected: value === '1w' }, label)));
  const refresh = async () => {
    const answer = await api.get(endpoint);
    showList(list, answer.items ?? [], endpoint, slot, refresh);
  };
  const create = button('Create share link', (e) => busy(e.currentTarget, slot, async () => {
    const link = await api.post(endpoint, { expiresIn: expiry.value });
    showNew(fresh, link);
    ctx.toast('Share link created.');
    await refresh();
  }), 'secondary', { id: 'share-link-create' });
  refresh().catch((error) => showError(slot, error));
  return h('div', {},
    h('h4', { text: 'Share links' }),
    h('p', { text: 'Anyone holding a share link sees this schedule (its name, term and classes, and your display name) until the link expires or you revoke it.' }),
    h('div', { class: 'row row-end' },
      h('div', { class: 'field' }, h('label', { for: expiryId, text: 'Link expires after' }), expiry),
      create),
    fresh, slot, list);
}

function showNew(box, link) {
  const address = pageAddress(link);
  const input = h('input', { readonly: true, value: address, 'aria-label': 'Share link address', class: 'copy-input', id: 'share-link-address' });
  const note = h('span', { class: 'note', role: 'status', id: 'share-link-copied' });
  replace(box,
    h('p', { text: `This address is shown only now${link.expiresAt ? `; it works until ${when(link.expiresAt)}` : ' and works until you revoke it'}.` }),
    h('div', { class: 'copy-row' }, input, button('Copy', async () => {
      note.textContent = (await copyText(address, input)) ? 'Copied.' : 'Press Ctrl+C to copy.';
    }, 'secondary', { 'aria-label': 'Copy the share link address', id: 'share-link-copy' })),
    note);
}

function showList(box, links, endpoint, slot, refresh) {
  if (!links.length) {
    replace(box, h('p', { class: 'muted', text: 'No live share links.' }));
    return;
  }
  replace(box, h('ul', { class: 'plain-list' }, links.map((link) => {
    const label = `created ${when(link.createdAt)}, ${link.expiresAt ? `expires ${when(link.expiresAt)}` : 'never expires'}`;
    return h('li', { dataset: { linkId: link.id } },
      h('span', { text: `Link ${label}` }), ' ',
      button('Revoke', (e) => busy(e.currentTarget, slot, async () => {
        await api.del(`${endpoint}/${link.id}`);
        showNote(slot, 'The link is revoked: its address shows nothing from now on.');
        await refresh();
      }), 'danger', { 'aria-label': `Revoke the share link ${label}`, dataset: { action: 'revoke-link' } }));
  })));
}
