// A private calendar subscription link (the registration's or a saved schedule's feed): create
// it (the address is shown once), copy it, revoke it, and tell whether one exists.
import { h, errorSlot, busy, replace, button, when, copyText } from './dom.js';
import * as api from './api.js';

/**
 * The controls of the feed at `endpoint` (`/v1/me/calendar-feed` or
 * `/v1/me/schedules/{id}/calendar-feed`). `what` names what the calendar shows, for the warning.
 */
export function feedControls(endpoint, what, idPrefix = 'feed') {
  const slot = errorSlot();
  const box = h('div', { class: 'feed', id: `${idPrefix}-box` });
  const controls = h('div', { class: 'actions' },
    button('Create subscription link', (e) => busy(e.currentTarget, slot, async () => {
      showFeed(box, await api.post(endpoint), what, idPrefix);
    }), 'secondary', { id: `${idPrefix}-create` }),
    button('Revoke subscription link', (e) => busy(e.currentTarget, slot, async () => {
      await api.del(endpoint);
      replace(box, h('p', { class: 'note', text: 'The subscription link is revoked: calendar apps using it get nothing more.' }));
    }), 'link', { id: `${idPrefix}-revoke` }));
  api.get(endpoint).then((feed) => {
    if (!box.childElementCount) replace(box, h('p', { class: 'muted', text: `A subscription link exists since ${when(feed.createdAt)}. Its address was shown once; create a new one to see it again (the old one stops working).` }));
  }).catch(() => {
    if (!box.childElementCount) replace(box, h('p', { class: 'muted', text: 'No subscription link yet.' }));
  });
  return [controls, box, slot];
}

function showFeed(box, feed, what, idPrefix) {
  const address = feed.url || new URL(feed.path, window.location.origin).href;
  const input = h('input', { readonly: true, value: address, 'aria-label': 'Subscription address', class: 'copy-input', id: `${idPrefix}-address` });
  const note = h('span', { class: 'note', role: 'status' });
  replace(box,
    h('p', { text: `Keep this address private: anyone with it can see ${what}. It is shown only now.` }),
    h('div', { class: 'copy-row' }, input, button('Copy', async () => {
      note.textContent = (await copyText(address, input)) ? 'Copied.' : 'Press Ctrl+C to copy.';
    }, 'secondary', { 'aria-label': 'Copy the subscription address' })),
    feed.webcalUrl ? h('p', {}, h('a', { href: feed.webcalUrl }, 'Open in my calendar app')) : null,
    note);
}
