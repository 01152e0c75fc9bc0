/**
 * The rules of an account's fields, as CSWeb 8.1 checks them when it creates users
 * (docs/supervision.md#accounts). Pure: each check returns what is wrong, or undefined.
 */

/** Longest first or last name, email and phone CSWeb 8.1 accepts. */
const FIELD_LIMITS = { name: 100, email: 254, phone: 30 } as const;

/**
 * Letters of any script, their combining marks (a Devanagari vowel sign, a decomposed accent),
 * apostrophe, hyphen and space: CSWeb 8.1's "Unicode letters, ' - and space"; the marks are ours
 * (docs/decisions.md, "Account names and the CSV import").
 */
const NAME = /^[\p{L}\p{M}' -]+$/u;

/** The WHATWG HTML form's check of an email address (what browsers accept in `type=email`). */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Control characters (tabs and line breaks included): never part of a phone number. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** CSWeb 8.1's user names: 4 to 64 ASCII letters and digits. */
const CSWEB_USERNAME = /^[A-Za-z0-9]{4,64}$/;

/** What is wrong with a first or last name (`label` names it in the message), or undefined. */
export function nameProblem(label: string, value: string): string | undefined {
  if (value.length === 0) return `${label} is empty`;
  if (value.length > FIELD_LIMITS.name) return `${label} has ${value.length} characters, more than ${FIELD_LIMITS.name}`;
  if (!NAME.test(value)) return `${label} may hold only letters, apostrophes, hyphens and spaces`;
  return undefined;
}

/** What is wrong with an email address, or undefined. */
export function emailProblem(value: string): string | undefined {
  if (value.length > FIELD_LIMITS.email) return `email has ${value.length} characters, more than ${FIELD_LIMITS.email}`;
  if (!EMAIL.test(value)) return `email "${value}" is not a valid address`;
  return undefined;
}

/** What is wrong with a phone number, or undefined. */
export function phoneProblem(value: string): string | undefined {
  if (value.length > FIELD_LIMITS.phone) return `phone has ${value.length} characters, more than ${FIELD_LIMITS.phone}`;
  if (CONTROL.test(value)) return 'phone holds a control character';
  return undefined;
}

/** What is wrong with a user name of a CSV import (CSWeb 8.1's rule), or undefined. */
export function cswebUsernameProblem(value: string): string | undefined {
  if (CSWEB_USERNAME.test(value)) return undefined;
  const shown = value.length > 70 ? `${value.slice(0, 64)}…` : value;
  return `user name "${shown}" is not valid: 4-64 letters (A-Z, a-z) and digits`;
}
