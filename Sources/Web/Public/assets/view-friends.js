// Friends: send a request by username (the API answers every username alike, and so does this
// page), incoming requests (accept, decline, decline and block), outgoing ones (cancel), the
// friends list (unfriend), blocks (block by username, unblock), the name other students see and
// whether friends see the student's enrollments. Names and usernames are other students' input:
// they are shown as text only.
import { h, field, errorSlot, busy, append, replace, button, when, showNote, showError, clearError } from './dom.js';
import * as api from './api.js';
import * as session from './session.js';

export async function renderFriends(container, ctx) {
  const [me, sharing] = await Promise.all([
    api.get('/v1/me'),
    api.get('/v1/me/registration/sharing').catch(() => ({ shareEnrollments: false })),
  ]);
  if (!ctx.isCurrent()) return;
  session.setAccount(me);
  const lists = h('div', { class: 'friends-layout', id: 'friends-lists' });
  const reload = async (focusSelector) => {
    await showLists(lists, reload, ctx);
    if (focusSelector) lists.querySelector(focusSelector)?.focus();
  };
  append(container, [
    h('h1', { text: 'Friends' }),
    h('p', { class: 'lead', text: 'Friends see the schedules you show them and, if you choose, your classes; you see theirs on your week view and in the catalog.' }),
    h('div', { class: 'friends-layout' }, requestForm(reload, ctx), settingsSection(me, sharing)),
    lists,
  ]);
  await showLists(lists, reload, ctx);
}

/** "Add a friend" by username, and "Block" by username: both answer the same for every username. */
function requestForm(reload, ctx) {
  const username = field('Username', h('input', { name: 'username', autocomplete: 'off', maxlength: 254, required: true, spellcheck: 'false' }),
    'The username your friend signs in with.');
  const slot = errorSlot();
  slot.id = 'friend-request-result';
  const send = h('button', { type: 'submit', class: 'btn btn-primary', id: 'friend-request-send' }, 'Send friend request');
  const form = h('form', { id: 'friend-request-form', novalidate: true, 'aria-labelledby': 'add-friend-title' }, username.wrap);
  const block = button('Block', (e) => submit(e.currentTarget, '/v1/me/blocks', 'Blocked: if this username belongs to a student, their requests go nowhere now.'),
    'danger', { id: 'friend-block-send', 'aria-label': 'Block the username entered' });
  append(form, [h('div', { class: 'actions' }, send, block), slot]);
  async function submit(control, path, blockedNote) {
    const name = username.input.value.trim();
    if (!name) {
      showError(slot, { problem: { title: 'No username', detail: 'Enter the username of the student.', invalidFields: ['username'] } }, form);
      username.input.focus();
      return;
    }
    const answer = await busy(control, slot, () => api.post(path, { username: name }), form);
    if (!answer) return;
    // The same words whatever the username: the API's own (it never says whether an account exists).
    showNote(slot, blockedNote || answer.detail || 'If this username belongs to a student, they will see your request.');
    username.input.value = '';
    ctx.toast(blockedNote ? 'Block saved.' : 'Friend request sent.');
    await reload();
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit(send, '/v1/me/friends/requests', null);
  });
  return h('section', { class: 'card', 'aria-labelledby': 'add-friend-title' },
    h('h2', { id: 'add-friend-title', text: 'Add a friend' }), form);
}

/** The display name (PATCH /v1/me) and "share my enrollments with friends". */
function settingsSection(me, sharing) {
  const name = field('Display name', h('input', { name: 'displayName', maxlength: 40, value: me.displayName ?? '', autocomplete: 'nickname' }),
    'What friends and share-link holders see. Leave it empty for the first name of your student profile.');
  const nameSlot = errorSlot();
  const save = h('button', { type: 'submit', class: 'btn btn-secondary', id: 'display-name-save' }, 'Save name');
  const form = h('form', { id: 'display-name-form', class: 'row row-end', novalidate: true }, name.wrap, save);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const value = name.input.value.trim();
    const saved = await busy(save, nameSlot, () => api.patch('/v1/me', { displayName: value || null }), form);
    if (!saved) return;
    session.setAccount(saved);
    name.input.value = saved.displayName ?? '';
    showNote(nameSlot, saved.displayName ? `Other students now see you as “${saved.displayName}”.` : 'You have no display name: friends see your username.');
  });

  const share = field('Share my enrollments with friends', h('input', { type: 'checkbox', name: 'shareEnrollments', id: 'share-enrollments', checked: Boolean(sharing?.shareEnrollments) }),
    'Friends then see the classes you are registered for.');
  const shareSlot = errorSlot();
  share.input.addEventListener('change', async () => {
    const wanted = share.input.checked;
    share.input.disabled = true;
    clearError(shareSlot);
    try {
      const saved = await api.put('/v1/me/registration/sharing', { shareEnrollments: wanted });
      share.input.checked = Boolean(saved.shareEnrollments);
      showNote(shareSlot, saved.shareEnrollments ? 'Your friends see your registered classes.' : 'Your registered classes are private.');
    } catch (error) {
      share.input.checked = !wanted;
      showError(shareSlot, error);
      if (error.status === 409 && String(error.problem?.type ?? '').endsWith('student-profile-required')) {
        shareSlot.lastElementChild?.append(h('p', {}, 'Sharing your classes needs a student profile first: ',
          h('a', { href: '#/registration' }, 'create it in My classes'), '.'));
      }
    } finally {
      share.input.disabled = false;
    }
  });
  return h('section', { class: 'card', 'aria-labelledby': 'friend-settings-title' },
    h('h2', { id: 'friend-settings-title', text: 'What friends see' }),
    form, nameSlot, share.wrap, shareSlot,
    h('p', { class: 'muted' }, 'Each saved schedule is private until you show it to friends in ', h('a', { href: '#/schedules' }, 'Saved schedules'), '.'));
}

async function showLists(box, reload, ctx) {
  const slot = errorSlot();
  let requests;
  let friends;
  let blocks;
  try {
    [requests, friends, blocks] = await Promise.all([
      api.get('/v1/me/friends/requests'), api.get('/v1/me/friends'), api.get('/v1/me/blocks')]);
  } catch (error) {
    replace(box, h('section', { class: 'card' }, h('h2', { text: 'Requests and friends' }), slot));
    showError(slot, error);
    return;
  }
  const items = requests.items ?? [];
  replace(box,
    incomingSection(items.filter((r) => r.direction === 'incoming'), reload, ctx),
    outgoingSection(items.filter((r) => r.direction === 'outgoing'), reload),
    friendsSection(friends.items ?? [], reload, ctx),
    blocksSection(blocks.items ?? [], reload));
}

function card(id, title, list, emptyText) {
  return h('section', { class: 'card', id, 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title`, tabindex: '-1', text: `${title} (${list.length})` }),
    list.length ? h('ul', { class: 'plain-list' }, list) : h('p', { class: 'muted', text: emptyText }));
}

function incomingSection(requests, reload, ctx) {
  return card('incoming-requests', 'Requests to you', requests.map((r) => {
    const slot = errorSlot();
    const who = r.displayName ? `${r.displayName} (${r.username})` : r.username;
    const act = (control, work, note) => busy(control, slot, async () => {
      await work();
      ctx.toast(note);
      await reload('#incoming-requests-title');
    });
    return h('li', { dataset: { requestId: r.id } },
      h('strong', { text: who }), h('small', { class: 'muted', text: ` · asked ${when(r.createdAt)}` }),
      h('div', { class: 'actions tight' },
        button('Accept', (e) => act(e.currentTarget, () => api.post(`/v1/me/friends/requests/${r.id}/accept`), `You and ${who} are friends.`),
          'primary', { 'aria-label': `Accept the friend request of ${who}`, dataset: { action: 'accept' } }),
        button('Decline', (e) => act(e.currentTarget, () => api.del(`/v1/me/friends/requests/${r.id}`), 'Request declined.'),
          'secondary', { 'aria-label': `Decline the friend request of ${who}`, dataset: { action: 'decline' } }),
        button('Decline and block', (e) => act(e.currentTarget, () => api.del(`/v1/me/friends/requests/${r.id}`, { query: { block: 'true' } }), `Declined, and ${who} is blocked.`),
          'danger', { 'aria-label': `Decline the friend request of ${who} and block them`, dataset: { action: 'decline-block' } })),
      slot);
  }), 'No requests waiting for you.');
}

function outgoingSection(requests, reload) {
  return card('outgoing-requests', 'Requests you sent', requests.map((r) => {
    const slot = errorSlot();
    return h('li', { dataset: { requestId: r.id } },
      h('strong', { text: r.username }), h('small', { class: 'muted', text: ` · sent ${when(r.createdAt)}, ends ${when(r.expiresAt)}` }),
      h('div', { class: 'actions tight' },
        button('Cancel request', (e) => busy(e.currentTarget, slot, async () => {
          await api.del(`/v1/me/friends/requests/${r.id}`);
          await reload('#outgoing-requests-title');
        }), 'secondary', { 'aria-label': `Cancel the friend request to ${r.username}`, dataset: { action: 'cancel' } })),
      slot);
  }), 'No requests waiting for an answer. A request to a username that has no account shows here too, and ends after 30 days.');
}

function friendsSection(friends, reload, ctx) {
  return card('friends', 'Your friends', friends.map((f) => {
    const slot = errorSlot();
    const who = `${f.displayName} (${f.username})`;
    return h('li', { dataset: { accountId: f.accountId } },
      h('strong', { text: f.displayName }), h('small', { class: 'muted', text: ` ${f.username} · friends since ${when(f.since)}` }),
      h('div', { class: 'actions tight' },
        button('Unfriend', (e) => busy(e.currentTarget, slot, async () => {
          if (!window.confirm(`Stop being friends with ${who}? Neither of you will see what the other shares.`)) return;
          await api.del(`/v1/me/friends/${f.accountId}`);
          ctx.toast(`You and ${who} are no longer friends.`);
          await reload('#friends-title');
        }), 'danger', { 'aria-label': `Unfriend ${who}`, dataset: { action: 'unfriend' } })),
      slot);
  }), 'No friends yet: send a request above.');
}

function blocksSection(blocks, reload) {
  return card('blocks', 'Blocked', blocks.map((b) => {
    const slot = errorSlot();
    return h('li', { dataset: { accountId: b.accountId } },
      h('strong', { text: b.username }), h('small', { class: 'muted', text: ` · since ${when(b.createdAt)}` }),
      h('div', { class: 'actions tight' },
        button('Unblock', (e) => busy(e.currentTarget, slot, async () => {
          await api.del(`/v1/me/blocks/${b.accountId}`);
          await reload('#blocks-title');
        }), 'secondary', { 'aria-label': `Unblock ${b.username}`, dataset: { action: 'unblock' } })),
      slot);
  }), 'Nobody is blocked. A blocked student’s requests go nowhere, and blocking a friend ends the friendship.');
}
