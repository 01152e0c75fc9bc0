/**
 * How the dictionary parsers say where a problem is. The text form points at physical lines,
 * the JSON form at property paths; validation runs on the finished model, so each parser hands
 * it a `Locate` function that maps a model object (and one of its fields) back to its source.
 */

import { AppError, type ErrorDetails } from '../../shared/errors.js';

/** Where a model object or one of its fields came from: a 1-based line (text) or a JSON path. */
export interface SourceSpot {
  line?: number;
  path?: string;
}

/** Maps a model object, and optionally one of its model fields, to its place in the source. */
export type Locate = (entity: object, field?: string) => SourceSpot;

/** Message prefix for a spot: `line 42: ` or `levels[0].records[1]: `. */
function spotPrefix(spot: SourceSpot): string {
  if (spot.line !== undefined) return `line ${spot.line}: `;
  if (spot.path !== undefined && spot.path !== '') return `${spot.path}: `;
  return '';
}

/** Builds the DICT_INVALID error with the spot in both the message and the details. */
export function dictInvalid(spot: SourceSpot, message: string, extra: ErrorDetails = {}): AppError {
  const details: ErrorDetails = { ...extra };
  if (spot.line !== undefined) details.line = spot.line;
  if (spot.path !== undefined) details.path = spot.path;
  return new AppError('DICT_INVALID', spotPrefix(spot) + message, details);
}
