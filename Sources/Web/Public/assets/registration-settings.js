// The registration rules (class limit, waitlist policy) from the public
// /v1/registration/settings, fetched once per page load, and the warning a schedule that holds
// more classes than the limit gets.
import { h } from './dom.js';
import * as api from './api.js';

let pending = null;

/** The settings, or null when they cannot be read (the warning is then left out). */
export function registrationSettings() {
  if (!pending) {
    pending = api.get('/v1/registration/settings', {}, { auth: false }).catch(() => {
      pending = null;
      return null;
    });
  }
  return pending;
}

/** A warning when `classCount` classes are more than registration allows; null otherwise. */
export function classLimitWarning(classCount, settings, id) {
  const limit = settings?.classLimit;
  if (!limit || classCount <= limit) return null;
  return h('p', { class: 'warning', id, role: 'note' },
    h('strong', { text: 'Over the class limit: ' }),
    `this schedule holds ${classCount} classes, and registration allows ${limit} per term. You can keep it as a plan, but you cannot register for all of it.`);
}

const POLICIES = {
  none: 'when a seat frees up, everyone on the waitlist is told and the first to register gets it',
  offer: 'when a seat frees up, the first student in line is offered it and has a while to accept',
  auto: 'when a seat frees up, the first student in line who can take it is registered at once',
};

/** The waitlist policy in words. */
export function policyText(settings) {
  const text = POLICIES[settings?.waitlistPolicy];
  if (!text) return null;
  const hours = settings.waitlistPolicy === 'offer' && settings.offerWindowMinutes
    ? ` (${settings.offerWindowMinutes >= 120 ? `${Math.round(settings.offerWindowMinutes / 60)} hours` : `${settings.offerWindowMinutes} minutes`})`
    : '';
  return `${text[0].toUpperCase()}${text.slice(1)}${hours}.`;
}
