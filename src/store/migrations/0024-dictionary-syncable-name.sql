-- The syncable name of a CSPro 8.1 dictionary (docs/sync.md#syncable-names): the name its clients
-- put in every sync and data-source URL when the dictionary JSON sets `"sync": {"name": …}`; NULL
-- when it sets none. No two dictionaries share one, whatever the case; that it is no other
-- dictionary's own name is checked by the upload, which says why it refuses.
ALTER TABLE dictionaries ADD COLUMN sync_name TEXT;
CREATE UNIQUE INDEX dictionaries_by_sync_name ON dictionaries (sync_name COLLATE NOCASE) WHERE sync_name IS NOT NULL;

-- A dictionary stored before kept its file as it came: one whose JSON carries a syncable name takes
-- it now, read as the upload reads it (trimmed; none when blank or the dictionary's own name), when
-- it is a valid name that no other dictionary has as its name or syncable name. A name that clashes
-- is left unset, and the next upload of that file is refused naming the clash. CASE keeps the JSON
-- functions off a file that is not JSON on its own (a byte order mark is skipped first).
WITH texts AS (
  SELECT id, name,
         CASE WHEN substr(CAST(source AS TEXT), 1, 1) = char(65279) THEN substr(CAST(source AS TEXT), 2) ELSE CAST(source AS TEXT) END AS t
  FROM dictionaries
  WHERE source_format = 'json'
),
candidates AS (
  SELECT id, name,
         CASE WHEN json_valid(t) THEN
           CASE WHEN json_type(t, '$.sync.name') = 'text' THEN trim(json_extract(t, '$.sync.name')) END
         END AS sn
  FROM texts
),
valid AS (
  SELECT id, sn FROM candidates
  WHERE sn IS NOT NULL AND sn <> '' AND sn <> name AND sn GLOB '[A-Za-z]*' AND sn NOT GLOB '*[^A-Za-z0-9_]*'
)
UPDATE dictionaries
SET sync_name = (SELECT sn FROM valid WHERE valid.id = dictionaries.id)
WHERE id IN (
  SELECT v.id FROM valid v
  WHERE NOT EXISTS (SELECT 1 FROM dictionaries d WHERE d.id <> v.id AND upper(d.name) = upper(v.sn))
    AND NOT EXISTS (SELECT 1 FROM valid w WHERE w.id <> v.id AND upper(w.sn) = upper(v.sn))
);
