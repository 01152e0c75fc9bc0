import { z } from 'zod';

/** Query of GET /api/dictionaries/{name}/export (docs/export.md#over-http). */
export const ExportQuery = z.object({
  format: z
    .string()
    .min(1)
    .meta({ param: { description: 'csv, stata, spss, parquet, xlsx (one Excel workbook) or geojson' }, example: 'csv' }),
  record: z
    .string()
    .optional()
    .meta({
      param: {
        description:
          'a table to send: a record name, `cases`, `notes` or `level_N` (repeatable or comma-separated); one table is sent as its file, several (or none named: all) as a zip with codebook.csv',
      },
      example: 'PERSON',
    }),
  labels: z
    .enum(['codes', 'labels', 'both'])
    .optional()
    .meta({
      param: {
        description:
          'CSV, Parquet, Excel and GeoJSON properties: codes (default), their value labels, or both (a `<name>_label` column after each coded column); Stata and SPSS carry value labels themselves and ignore it',
      },
    }),
  since_revision: z
    .string()
    .regex(/^\d{1,15}$/, 'must be a whole number ≥ 0')
    .optional()
    .meta({ param: { description: 'only the cases changed after this store revision' } }),
  include_deleted: z
    .enum(['true', 'false'])
    .optional()
    .meta({ param: { description: 'deleted cases too, with a `deleted` column' } }),
  ids: z
    .enum(['true', 'false'])
    .optional()
    .meta({
      param: {
        description: 'true (default): every record table holds the id items of its case (and level nodes) after `case_id`; false: not',
      },
    }),
  lat: z
    .string()
    .min(1)
    .optional()
    .meta({
      param: { description: 'geojson: the latitude item (default: the one set for the dictionary)' },
      example: 'HH_GPS_LATITUDE',
    }),
  lon: z
    .string()
    .min(1)
    .optional()
    .meta({
      param: { description: 'geojson: the longitude item, on the same record (default: the one set for the dictionary)' },
      example: 'HH_GPS_LONGITUDE',
    }),
  item: z
    .string()
    .optional()
    .meta({
      param: { description: 'geojson: an item each point carries as a property (repeatable or comma-separated)' },
      example: 'HH_TENURE',
    }),
});
