// The student's devices: every channel the API knows (apps, browsers, webhooks, the log) and any
// it adds later, shown with what the device JSON holds; and, kept apart, email addresses and
// phone numbers: added here, then confirmed with the code mailed or texted to them (or a new
// one) before anything else is sent there.
import { h, field, errorSlot, busy, replace, button, when, showNote } from './dom.js';
import * as api from './api.js';

export const DEVICE_KEY = 'campus-gateway.webpush-device';

const CHANNELS = { apns: 'iOS app', webpush: 'Web Push', webhook: 'Webhook', log: 'Log only', email: 'Email', sms: 'Text messages' };

/** A channel as people read it; an unknown channel shows as it is named. */
export function channelLabel(channel) {
  return CHANNELS[channel] || String(channel || 'unknown channel');
}

/** Where a device's notifications go, from whichever field its channel has. */
function destination(d) {
  return [d.address, d.email, d.phone, d.endpointHost, d.topic].find((v) => typeof v === 'string' && v) || '';
}

/** An email address or phone number still waiting for its code. */
function unconfirmed(d) {
  return (d.channel === 'email' || d.channel === 'sms') && d.confirmed === false;
}

/** Whether the device is active; an email address also whether it is confirmed (until then it
 * is inactive by design, so it shows as waiting rather than broken). */
function statusBadges(d) {
  if (unconfirmed(d)) return h('span', { class: 'badge badge-warn', text: 'not confirmed' });
  return [
    d.confirmed === true ? h('span', { class: 'badge badge-ok', text: 'confirmed' }) : null,
    h('span', { class: d.active === false ? 'badge badge-bad' : 'badge badge-ok', text: d.active === false ? 'inactive' : 'active' }),
  ];
}

function deviceItem(d, ctx, extra = null) {
  const storedId = Number(localStorage.getItem(DEVICE_KEY)) || null;
  const slot = errorSlot();
  const history = h('div', { class: 'history' });
  const where = destination(d);
  const name = d.name || where || channelLabel(d.channel);
  const failures = Number.isFinite(d.failureCount) ? d.failureCount : 0;
  return h('li', { dataset: { deviceId: d.id, channel: d.channel } },
    h('p', {}, h('strong', { text: name }), ` · ${channelLabel(d.channel)}${where && where !== name ? ` · ${where}` : ''}`,
      d.id === storedId ? h('span', { class: 'badge', text: 'this browser' }) : null,
      statusBadges(d)),
    h('p', { class: 'muted', text: `Added ${when(d.createdAt)} · last delivery ${when(d.lastSuccessAt)} · ${failures} failures${d.lastError ? ` · last error: ${d.lastError}` : ''}` }),
    Array.isArray(d.mutedCategories) && d.mutedCategories.length
      ? h('p', { class: 'muted', text: `Unsubscribed from: ${d.mutedCategories.map((c) => (c === '*' ? 'everything' : c)).join(', ')}` }) : null,
    extra,
    h('div', { class: 'actions' },
      unconfirmed(d) ? null : button('Send a test', (e) => busy(e.currentTarget, slot, async () => {
        const result = await api.post(`/v1/me/devices/${d.id}/test`);
        showNote(slot, result?.queued ? 'A test notification is on its way.' : 'Not sent: the device is inactive.');
      }), 'secondary', { 'aria-label': `Send a test to ${name}` }),
      button('Deliveries', (e) => busy(e.currentTarget, slot, async () => {
        const list = (await api.get(`/v1/me/devices/${d.id}/notifications`)).items;
        replace(history, list.length ? h('ul', { class: 'plain-list compact' }, list.map((n) =>
          h('li', { text: `${when(n.createdAt)} · ${n.title} — ${n.state}${n.attempts ? ` after ${n.attempts} attempts` : ''}${n.lastError ? ` (${n.lastError})` : ''}` })))
          : h('p', { class: 'muted', text: 'Nothing sent to this device yet.' }));
      }), 'secondary', { 'aria-label': `Deliveries to ${name}` }),
      button('Remove', (e) => busy(e.currentTarget, slot, async () => {
        await api.del(`/v1/me/devices/${d.id}`);
        if (d.id === storedId) localStorage.removeItem(DEVICE_KEY);
        ctx.go('notifications');
      }), 'danger', { 'aria-label': `Remove ${name}` })),
    history, slot);
}

/** Every device but email addresses and phone numbers. */
export function devicesSection(devices, ctx) {
  const list = devices.filter((d) => d.channel !== 'email' && d.channel !== 'sms');
  return h('section', { class: 'card', 'aria-labelledby': 'devices-title' },
    h('h2', { id: 'devices-title', text: 'Devices' }),
    list.length ? h('ul', { class: 'plain-list', id: 'devices' }, list.map((d) => deviceItem(d, ctx)))
      : h('p', { class: 'muted', text: 'No device yet.' }));
}

/** Email addresses, each with a code input and a way to get a new code until it is confirmed;
 * and a form to add one. */
export function emailSection(devices, ctx) {
  const list = devices.filter((d) => d.channel === 'email');
  return h('section', { class: 'card', id: 'email-devices', 'aria-labelledby': 'email-title' },
    h('h2', { id: 'email-title', text: 'Email' }),
    h('p', { class: 'muted', text: 'Email addresses get notifications once confirmed with the code mailed to them.' }),
    list.length ? h('ul', { class: 'plain-list', id: 'email-list' }, list.map((d) => deviceItem(d, ctx, unconfirmed(d) ? confirmBox(d, ctx) : null)))
      : h('p', { class: 'muted', text: 'No email address gets notifications.' }),
    addEmailForm(ctx));
}

function addEmailForm(ctx) {
  const email = field('Email address', h('input', { name: 'email', type: 'email', autocomplete: 'email', maxlength: 254, required: true }),
    'A code to confirm it is mailed there; nothing else is sent until you confirm.');
  const name = field('Name (optional)', h('input', { name: 'name', maxlength: 100 }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Add email address');
  const form = h('form', { id: 'email-add-form', novalidate: true, 'aria-label': 'Add an email address' },
    h('div', { class: 'row' }, email.wrap, name.wrap), submit, slot);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { channel: 'email', email: email.input.value.trim() };
    const label = name.input.value.trim();
    if (label) body.name = label;
    const created = await busy(submit, slot, () => api.post('/v1/me/devices', body), form);
    if (created) {
      ctx.toast(`A confirmation code is on its way to ${created.device?.email || body.email}.`);
      ctx.go('notifications');
    }
  });
  return form;
}

/** Phone numbers (text messages), each with a code input and a way to get a new code until it
 * is confirmed; and a form to add one. */
export function smsSection(devices, ctx) {
  const list = devices.filter((d) => d.channel === 'sms');
  return h('section', { class: 'card', id: 'sms-devices', 'aria-labelledby': 'sms-title' },
    h('h2', { id: 'sms-title', text: 'Text messages' }),
    h('p', { class: 'muted', text: 'Phone numbers get short texts (open seats, offers) once confirmed with the code texted to them. Reply STOP to a text to stop them on every account, START to resume.' }),
    list.length ? h('ul', { class: 'plain-list', id: 'sms-list' }, list.map((d) => deviceItem(d, ctx, unconfirmed(d) ? confirmBox(d, ctx) : null)))
      : h('p', { class: 'muted', text: 'No phone number gets text messages.' }),
    addPhoneForm(ctx));
}

function addPhoneForm(ctx) {
  const phone = field('Mobile number', h('input', { name: 'phone', type: 'tel', autocomplete: 'tel', inputmode: 'tel', maxlength: 16, placeholder: '+16195550123', required: true }),
    'In international form: +, the country code, then the number, no spaces. A code to confirm it is texted there; nothing else is sent until you confirm.');
  const name = field('Name (optional)', h('input', { name: 'name', maxlength: 100 }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Add phone number');
  const form = h('form', { id: 'sms-add-form', novalidate: true, 'aria-label': 'Add a phone number' },
    h('div', { class: 'row' }, phone.wrap, name.wrap), submit, slot);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { channel: 'sms', phone: phone.input.value.replace(/[\s().-]/g, '') };
    const label = name.input.value.trim();
    if (label) body.name = label;
    const created = await busy(submit, slot, () => api.post('/v1/me/devices', body), form);
    if (created) {
      ctx.toast(`A confirmation code is on its way to ${created.device?.phone || body.phone}.`);
      ctx.go('notifications');
    }
  });
  return form;
}

function confirmBox(device, ctx) {
  const where = destination(device) || 'this address';
  const slot = errorSlot();
  const resend = button('Send a new code', (e) => busy(e.currentTarget, slot, async () => {
    await api.post(`/v1/me/devices/${device.id}/resend-confirmation`);
    showNote(slot, `A new code is on its way to ${where}; earlier codes no longer work.`);
  }), 'secondary', { 'aria-label': `Send a new code to ${where}`, dataset: { action: 'resend-confirmation' } });
  return h('div', { class: 'confirm-box' }, confirmForm(device, ctx), h('div', { class: 'actions' }, resend), slot);
}

function confirmForm(device, ctx) {
  const where = destination(device) || 'this address';
  const code = field('Confirmation code', h('input', { name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric', maxlength: 32, required: true }),
    `The code sent to ${where}.`);
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Confirm');
  const form = h('form', { class: 'row row-end confirm-form', novalidate: true, 'aria-label': `Confirm ${where}` }, code.wrap, submit, slot);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const done = await busy(submit, slot, () => api.post(`/v1/me/devices/${device.id}/confirm`, { code: code.input.value.trim() }).then(() => true), form);
    if (done) {
      ctx.toast(`${where} is confirmed.`);
      ctx.go('notifications');
    }
  });
  return form;
}
