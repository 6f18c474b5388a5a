// E-mail addresses: a person's, which neither a lesson (lint's `leak/email`) nor anything rkb keeps
// from a session may hold. `git@host` is an SSH remote, not a person.

/** What may be an address. It starts only where a run of name characters starts: from every character of a long run the search is quadratic. */
export const EMAIL = /(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g;

/**
 * True for a match of EMAIL that names a person: not an SSH remote's `git@`, and a name with a
 * letter or a digit (`+@pytest.fixture`, a decorator on a diff's line, is none).
 */
export const namesPerson = (address: string) => !address.startsWith("git@") && /[A-Za-z0-9]/.test(address.slice(0, address.indexOf("@")));

/** What an address is written as. */
export const EMAIL_MASK = "[masked:email]";

/** The text with each person's address written EMAIL_MASK. */
export function maskEmails(text: string): string {
  return text.includes("@") ? text.replace(EMAIL, (m) => (namesPerson(m) ? EMAIL_MASK : m)) : text;
}
