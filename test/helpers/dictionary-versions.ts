/**
 * Versions of one dictionary row for the tests of the dictionary model cache and of the row kept
 * between requests: each version's model carries the version's name as a `label` of the test's
 * own, so a test tells which version a read returned.
 */
import type { Dictionary } from '../../src/cspro/dictionary/model.js';
import type { NewDictionary } from '../../src/store/dictionaries-repo.js';

/** HOUSEHOLD_DICT (syncable name HOUSEHOLD_SYNC) at version `v`. */
export const householdVersion = (v: string): NewDictionary => ({
  name: 'HOUSEHOLD_DICT',
  label: 'household',
  version: 'CSPro 8.0',
  description: '',
  source: Buffer.from(v),
  sourceFormat: 'text',
  syncName: 'HOUSEHOLD_SYNC',
  model: { name: 'HOUSEHOLD_DICT', label: v } as unknown as Dictionary,
});

/** The version named in the model of a read (a field of the test's, not of a real model). */
export const versionIn = (d: { model: Dictionary } | undefined) => (d?.model as unknown as { label: string } | undefined)?.label;
