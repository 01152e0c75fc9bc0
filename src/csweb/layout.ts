/**
 * Where each CSWeb schema version keeps what the import reads (docs/migrating-from-csweb.md#csweb-81):
 * one object per version, so the readers take the layout the schema check found instead of
 * testing the version here and there. Version 7 is CSWeb 8.0's database, 8 is CSWeb 8.1's.
 */

/** How a case row stores its case. */
export type CaseForm =
  /** CSWeb 8.0: the `level-1` JSON (or record lines) in `questionnaire`, notes and partial save in columns and a notes table. */
  | 'columns'
  /** CSWeb 8.1: the whole case as the 8.1 client sent it (docs/sync.md#v3-case-json), notes included, in `questionnaire`. */
  | 'v3';

/** The tables and columns of one CSWeb schema version. */
export interface CswebLayout {
  schemaVersion: number;
  /** The CSWeb release whose database this is, for messages. */
  release: string;
  /** The fixed tables and the columns of them the import reads. */
  fixed: Readonly<Record<string, readonly string[]>>;
  /** cspro_dictionaries: the column naming the case tables (and the dictionary in URLs). */
  tableNameColumn: string;
  /** cspro_dictionaries: the dictionary's own name, when the version keeps it apart (8.1's `dictionary_actual_name`). */
  ownNameColumn: string | null;
  /** The case table's GUID column, and the column of the notes and binary tables that points at it. */
  guidColumn: string;
  caseGuidColumn: string;
  /** The case table's case key column. */
  keyColumn: string;
  caseForm: CaseForm;
  /** The columns of the case table the import reads. */
  caseColumns: readonly string[];
  /** The notes table's columns, or null when notes are inside the case (8.1). */
  notesColumns: readonly string[] | null;
  binaryColumns: readonly string[];
  /** cspro_users has `uuid`, the id a CSPro 8.1 client is told at login. */
  userUuid: boolean;
  /** cspro_messages exists (messages sent with CSPro 8.1's syncmessage). */
  messages: boolean;
}

const ACCOUNT_TABLES = {
  cspro_users: ['username', 'password', 'first_name', 'last_name', 'email', 'phone', 'role'],
  cspro_roles: ['id', 'name'],
  cspro_permissions: ['id', 'name'],
  cspro_role_permissions: ['role_id', 'permission_id'],
  cspro_role_dictionary_permissions: ['role_id', 'dictionary_id', 'permission_id'],
};

/** CSWeb 8.0 (schema version 7): what sds has read since the first import. */
const V7: CswebLayout = {
  schemaVersion: 7,
  release: 'CSWeb 8.0',
  fixed: {
    cspro_config: ['name', 'value'],
    cspro_dictionaries: ['id', 'dictionary_name', 'dictionary_label', 'dictionary_full_content'],
    cspro_sync_history: ['revision', 'dictionary_id'],
  },
  tableNameColumn: 'dictionary_name',
  ownNameColumn: null,
  guidColumn: 'guid',
  caseGuidColumn: 'case_guid',
  keyColumn: 'caseids',
  caseForm: 'columns',
  caseColumns: [
    'guid',
    'caseids',
    'label',
    'questionnaire',
    'revision',
    'deleted',
    'verified',
    'clock',
    'partial_save_mode',
    'partial_save_field_name',
    'partial_save_level_key',
    'partial_save_record_occurrence',
    'partial_save_item_occurrence',
    'partial_save_subitem_occurrence',
  ],
  notesColumns: [
    'case_guid',
    'operator_id',
    'field_name',
    'level_key',
    'record_occurrence',
    'item_occurrence',
    'subitem_occurrence',
    'content',
    'modified_time',
  ],
  binaryColumns: ['case_guid', 'binary_data_signature'],
  userUuid: false,
  messages: false,
};

/**
 * CSWeb 8.1 (schema version 8): dictionaries keyed by the syncable name (`name`) beside their own
 * (`dictionary_actual_name`); case tables with `uuid` and `key`, the whole 8.1 case JSON in
 * `questionnaire` and no notes table; `cspro_users.uuid`; `cspro_messages`; dotted rights.
 */
const V8: CswebLayout = {
  schemaVersion: 8,
  release: 'CSWeb 8.1',
  fixed: {
    cspro_config: ['name', 'value'],
    cspro_dictionaries: ['id', 'name', 'dictionary_actual_name', 'dictionary_label', 'dictionary_full_content'],
    cspro_sync_history: ['revision', 'dictionary_id'],
    cspro_messages: ['id', 'username', 'device', 'name', 'value', 'created_time'],
    ...ACCOUNT_TABLES,
    cspro_users: [...ACCOUNT_TABLES.cspro_users, 'uuid'],
  },
  tableNameColumn: 'name',
  ownNameColumn: 'dictionary_actual_name',
  guidColumn: 'uuid',
  caseGuidColumn: 'case_uuid',
  keyColumn: 'key',
  caseForm: 'v3',
  caseColumns: ['uuid', 'key', 'label', 'questionnaire', 'revision', 'deleted', 'verified', 'clock'],
  notesColumns: null,
  binaryColumns: ['case_uuid', 'binary_data_signature'],
  userUuid: true,
  messages: true,
};

/** Every schema version sds reads, oldest first. */
export const CSWEB_LAYOUTS: readonly CswebLayout[] = [V7, V8];

/** The oldest schema version sds reads. */
export const OLDEST_SCHEMA_VERSION = V7.schemaVersion;

/** The layout of a schema version; undefined for one sds does not know. */
export function layoutOf(version: number | undefined): CswebLayout | undefined {
  return CSWEB_LAYOUTS.find((l) => l.schemaVersion === version);
}

/** CSWeb 8.0's layout: for readers given no layout (an account import run on its own). */
export const CSWEB_80_LAYOUT = V7;
/** CSWeb 8.1's layout. */
export const CSWEB_81_LAYOUT = V8;
