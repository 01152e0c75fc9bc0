import { AppError } from '../../shared/errors.js';

/** Longest accepted label: leaves room in a 63-character identifier for `_` and a record name. */
export const MAX_LABEL_LENGTH = 30;

const LABEL_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Checks a dictionary label, which becomes the lower-cased prefix of every breakout table
 * (docs/breakout.md#text). Returned unchanged: the label is stored as given and lower-cased when used.
 */
export function validateLabel(label: unknown): string {
  if (typeof label !== 'string' || label.length === 0) {
    throw new AppError('LABEL_INVALID', 'a label is required: a letter followed by letters, digits or _', { field: 'label' });
  }
  if (!LABEL_PATTERN.test(label)) {
    throw new AppError(
      'LABEL_INVALID',
      `label "${label}" is not valid: it must start with a letter and contain only letters, digits and _ (it prefixes table names)`,
      { field: 'label', label },
    );
  }
  if (label.length > MAX_LABEL_LENGTH) {
    throw new AppError('LABEL_INVALID', `label "${label}" is ${label.length} characters long; at most ${MAX_LABEL_LENGTH} are allowed`, {
      field: 'label',
      label,
    });
  }
  return label;
}

/** The table prefix of a label: lower case, as the spec names tables `{label}_{table}`. */
export function tablePrefix(label: string): string {
  return label.toLowerCase();
}
