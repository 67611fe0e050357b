// Sign in and sign up.
import { h, field, errorSlot, busy, append } from './dom.js';
import * as api from './api.js';
import { campusOffer, campusButton } from './campus-signin.js';

export async function renderAuth(container, { mode, next, go, toast }) {
  const campus = await campusOffer();
  const studentsUsePasswords = campus.passwordSignIn !== 'admins-only';
  const signIn = signInForm(next, go, toast, studentsUsePasswords ? 'I have an account' : 'Administrators');
  const signUp = studentsUsePasswords ? signUpForm(next, go, toast) : null;
  const button = campusButton(campus, `/?next=${encodeURIComponent(next || 'catalog')}`);
  append(container, [
    h('h1', { text: mode === 'signup' && signUp ? 'Create your account' : 'Sign in' }),
    h('p', { class: 'lead', text: 'Browse the catalog, register for classes, build a schedule and follow your grades.' }),
    button ? h('section', { class: 'card campus', 'aria-labelledby': 'campus-title' },
      h('h2', { id: 'campus-title', text: 'Students and staff' }),
      h('p', { text: 'Use the account you already have on campus.' }), button) : null,
    h('div', { class: 'auth-grid' }, signIn, signUp),
  ]);
  if (mode === 'signup' && signUp) signUp.querySelector('input')?.focus();
}

function signInForm(next, go, toast, title) {
  const username = field('Username', h('input', { name: 'username', autocomplete: 'username', required: true }));
  const password = field('Password', h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Sign in');
  const form = h('form', { class: 'card', id: 'signin-form', 'aria-labelledby': 'signin-title', novalidate: true },
    h('h2', { id: 'signin-title', text: title }), username.wrap, password.wrap, slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const account = await busy(submit, slot, () => api.signIn(username.input.value.trim(), password.input.value), form);
    if (account) {
      toast(`Welcome, ${account.username}.`);
      go(next || 'catalog');
    }
  });
  return form;
}

function signUpForm(next, go, toast) {
  const username = field('Username', h('input', { name: 'username', autocomplete: 'username', required: true, minlength: 3, maxlength: 64 }),
    '3 to 64 letters, digits, . _ - or an email address.');
  const email = field('Email (optional)', h('input', { name: 'email', type: 'email', autocomplete: 'email' }));
  const password = field('Password', h('input', { name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }),
    'At least 8 characters, not a common password.');
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Create account');
  const form = h('form', { class: 'card', id: 'signup-form', 'aria-labelledby': 'signup-title', novalidate: true },
    h('h2', { id: 'signup-title', text: 'I am new here' }), username.wrap, email.wrap, password.wrap, slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { username: username.input.value.trim(), password: password.input.value };
    if (email.input.value.trim()) body.email = email.input.value.trim();
    const account = await busy(submit, slot, async () => {
      await api.post('/v1/accounts', body, { auth: false });
      return api.signIn(body.username, body.password);
    }, form);
    if (account) {
      toast(`Account ${account.username} created. You are signed in.`);
      go(next === 'catalog' ? 'registration' : next);
    }
  });
  return form;
}
