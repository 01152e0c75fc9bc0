import { z } from 'zod';
import type { DictionaryDetail as CoreDetail, DictionaryListItem as CoreListItem, DictionaryShort as CoreShort } from '../../core/dictionaries.js';
import { Timestamp } from './common.js';

const NameLabel = z.strictObject({ name: z.string(), label: z.string() });

/** Path parameter `{name}` (case-sensitive). */
export const DictionaryNameParams = z.object({
  name: z.string().min(1).meta({ param: { description: 'dictionary name, case-sensitive' }, example: 'POPSTAN_CENSUS_DICT' }),
});

/** Dictionary list item (spec 2.2, list form). */
export const DictionaryListItem = z
  .strictObject({
    name: z.string(),
    label: z.string(),
    version: z.string(),
    created_at: Timestamp,
    caseCount: z.int().min(0).meta({ description: 'cases not deleted (as CSWeb lists it)' }),
  })
  .meta({ id: 'DictionaryListItem' });

export const DictionaryList = z.array(DictionaryListItem).meta({ id: 'DictionaryList' });

/** Dictionary detail (spec 2.2). */
export const DictionaryDetail = z
  .strictObject({
    name: z.string(),
    label: z.string(),
    version: z.string(),
    description: z.string(),
    levels: z.array(NameLabel),
    records: z.array(NameLabel),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'DictionaryDetail' });

/** Short detail form (spec 2.2): only name, label, levels and records. */
export const DictionaryShort = z
  .strictObject({ name: z.string(), label: z.string(), levels: z.array(NameLabel), records: z.array(NameLabel) })
  .meta({ id: 'DictionaryShort' });

/** Query of GET /api/dictionaries/{name}: which detail form. */
export const DictionaryFormQuery = z.object({
  form: z
    .enum(['full', 'short'])
    .optional()
    .meta({ param: { description: '`short`: only name, label, levels and records (spec 2.2); `full` (the default): every field' }, example: 'short' }),
});

/** Multipart body of POST /api/dictionaries. */
export const DictionaryUploadForm = z
  .object({
    file: z.string().meta({ format: 'binary', description: 'the .dcf file (text or JSON form)' }),
    label: z.string().meta({ description: 'short label, prefix of the breakout tables: a letter, then letters, digits or _', example: 'popstan' }),
  })
  .meta({ id: 'DictionaryUploadForm' });

/** Upload reply (spec 2.2). */
export const DictionaryUploadReply = z
  .strictObject({ message: z.string(), name: z.string(), label: z.string() })
  .meta({ id: 'DictionaryUploadReply' });

/** Deletion reply (spec 4.2). */
export const DictionaryDeleteReply = z.strictObject({ message: z.string(), name: z.string() }).meta({ id: 'DictionaryDeleteReply' });

// Compile-time guard: the schemas must describe what the core returns.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const schemasMatchCore: [
  Same<z.infer<typeof DictionaryDetail>, CoreDetail>,
  Same<z.infer<typeof DictionaryListItem>, CoreListItem>,
  Same<z.infer<typeof DictionaryShort>, CoreShort>,
] = [true, true, true];
