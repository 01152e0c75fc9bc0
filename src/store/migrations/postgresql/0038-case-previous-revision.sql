-- The revision a case had before its latest change, as on SQLite (migration 0038 there, and
-- docs/decisions.md, "A download's total across new uploads"): the column and the index of the
-- changed cases; the upload function of the baseline setting it as the repositories' upserts do
-- (CASE_UPSERT_SET); sds_moved_total, with which the page function of migration 0035 (and the
-- repository's count) moves a carried total by the cases changed since its snapshot instead of
-- counting the rest of the range again; and the page functions returning only the columns a page
-- sends. Adding a NULL
-- column rewrites nothing, and the partial index starts empty (building it reads the table once).
ALTER TABLE cases ADD COLUMN prev_revision bigint;
CREATE INDEX cases_changed ON cases (dictionary_id, revision, prev_revision, guid) WHERE prev_revision IS NOT NULL;

CREATE OR REPLACE FUNCTION sds_write_upload(
  p_dictionary bigint, p_origin text, p_now text,
  p_read_guids text[], p_read_versions text[],
  p_guid text[], p_case_key text[], p_label text[], p_data text[], p_verified smallint[], p_deleted smallint[],
  p_clock text[], p_partial_save text[], p_notes text[], p_case_note text[],
  p_item_cases text[], p_item_guid text[], p_item_signature text[], p_item_size bigint[], p_item_time text[],
  p_device text, p_username text, p_cases bigint
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_revision bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(8314897747198503283);
  IF EXISTS (
    SELECT 1 FROM unnest(p_read_guids, p_read_versions) AS s(guid, version)
      LEFT JOIN LATERAL (SELECT c.xmin::text AS version FROM cases c WHERE c.dictionary_id = p_dictionary AND c.guid = s.guid LIMIT 1) now_ ON true
     WHERE now_.version IS DISTINCT FROM s.version
  ) THEN
    RETURN NULL;
  END IF;
  INSERT INTO revisions (dictionary_id, origin, created_at) VALUES (p_dictionary, p_origin, p_now) RETURNING revision INTO v_revision;
  IF cardinality(p_guid) > 0 THEN
    WITH input AS (
      SELECT * FROM unnest(p_guid, p_case_key, p_label, p_data, p_verified, p_deleted, p_clock, p_partial_save, p_notes, p_case_note)
        WITH ORDINALITY AS t(guid, case_key, label, data, verified, deleted, clock, partial_save, notes, case_note, n)
    ), fresh AS (
      SELECT i.n, row_number() OVER (ORDER BY i.n) AS k FROM input i
        LEFT JOIN LATERAL (SELECT 1 AS stored FROM cases c WHERE c.dictionary_id = p_dictionary AND c.guid = i.guid LIMIT 1) s ON true
       WHERE s.stored IS NULL
    ), top AS (
      SELECT coalesce(max(c.position), 0) AS p FROM cases c WHERE c.dictionary_id = p_dictionary
    )
    INSERT INTO cases AS c (dictionary_id, guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, case_note, created_at, modified_at, position)
    SELECT p_dictionary, i.guid, i.case_key, i.label, i.data, i.verified, i.deleted, v_revision, i.clock, i.partial_save, i.notes, i.case_note, p_now, p_now,
           coalesce(top.p + f.k, 0)
      FROM input i LEFT JOIN fresh f USING (n) CROSS JOIN top
     ORDER BY i.n
    ON CONFLICT (dictionary_id, guid) DO UPDATE SET prev_revision = c.revision, case_key = excluded.case_key, label = excluded.label, data = excluded.data,
       verified = excluded.verified, deleted = excluded.deleted, revision = excluded.revision, clock = excluded.clock,
       partial_save = excluded.partial_save, notes = excluded.notes, case_note = excluded.case_note, modified_at = excluded.modified_at;
  END IF;
  IF cardinality(p_item_cases) > 0 THEN
    WITH items AS (
      SELECT DISTINCT ON (t.case_guid, t.signature) t.case_guid, t.signature, t.size, t.modified_time
        FROM unnest(p_item_guid, p_item_signature, p_item_size, p_item_time) WITH ORDINALITY AS t(case_guid, signature, size, modified_time, n)
       ORDER BY t.case_guid, t.signature, t.n DESC
    ), gone AS (
      DELETE FROM case_binary_items b WHERE b.dictionary_id = p_dictionary AND b.case_guid = ANY(p_item_cases)
         AND NOT EXISTS (SELECT 1 FROM items i WHERE i.case_guid = b.case_guid AND i.signature = b.signature)
    )
    INSERT INTO case_binary_items AS b (dictionary_id, case_guid, signature, size, modified_time)
    SELECT p_dictionary, i.case_guid, i.signature, i.size, i.modified_time FROM items i
    ON CONFLICT (dictionary_id, case_guid, signature) DO UPDATE SET size = excluded.size, modified_time = excluded.modified_time;
  END IF;
  WITH device AS (
    INSERT INTO sync_devices AS d (device_id, last_user, first_seen, last_seen) VALUES (p_device, p_username, p_now, p_now)
    ON CONFLICT (device_id) DO UPDATE SET last_user = excluded.last_user, last_seen = excluded.last_seen
    RETURNING d.device_id)
  INSERT INTO sync_history (dictionary_id, device_id, username, direction, revision, universe, cases, created_at)
  SELECT p_dictionary, device.device_id, p_username, 'put', v_revision, '', p_cases, p_now FROM device;
  RETURN v_revision;
END $$;

-- What the cases changed after p_from did to the total of a download range up to p_upto, with no
-- universe filter: + those now in it, − those it held at p_from by their previous revision; NULL
-- when one changed twice since p_from (its revision then is lost) and the caller counts
-- (docs/decisions.md, "A download's total across new uploads"). STABLE: called from the page
-- function it reads that statement's snapshot. The SQLite store's statements are movedSql in
-- src/store/sync-repo.ts.
CREATE FUNCTION sds_moved_total(
  p_dictionary bigint, p_from bigint, p_upto bigint, p_after_revision bigint, p_after_guid text, p_exclude bigint[]
) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM cases c WHERE c.dictionary_id = p_dictionary AND c.revision > p_from
                                                   AND c.prev_revision > p_from) THEN NULL
         ELSE (SELECT count(*) FROM cases c
                WHERE c.dictionary_id = p_dictionary AND c.revision > p_from AND c.revision <= p_upto
                  AND (cardinality(p_exclude) = 0 OR c.revision <> ALL (p_exclude)))
            - (SELECT count(*) FROM cases c
                WHERE c.dictionary_id = p_dictionary AND c.revision > p_from AND c.prev_revision IS NOT NULL
                  AND (c.prev_revision, c.guid) > (p_after_revision, p_after_guid)
                  AND (cardinality(p_exclude) = 0 OR c.prev_revision <> ALL (p_exclude))) END
$$;

-- The page function without the case's two timestamps, which no page sends (the repository read
-- only the page's columns, PAGE_COLUMNS, and node-pg parsed the two on every row): a new return
-- type, so both functions are dropped and made again.
DROP FUNCTION sds_sync_page_named(text, bigint, text, text, bigint[], bigint, bigint, bigint, bigint, bigint);
DROP FUNCTION sds_sync_page(bigint, bigint, text, text, bigint[], bigint, bigint, bigint, bigint);

CREATE FUNCTION sds_sync_page(
  p_dictionary bigint, p_after_revision bigint, p_after_guid text, p_universe text, p_exclude bigint[],
  p_limit bigint, p_budget bigint, p_carried_upto bigint, p_carried_total bigint
) RETURNS TABLE (
  snapshot bigint, total bigint, seen bigint, guid text, case_key text, label text, data text, verified smallint, deleted smallint,
  revision bigint, clock text, partial_save text, notes text, case_note text, has_binary boolean
) LANGUAGE plpgsql STABLE SET enable_bitmapscan = off AS $$
#variable_conflict use_column
DECLARE
  v_snapshot bigint;
  v_moved bigint;
BEGIN
  SELECT coalesce(max(r.revision), 0) INTO v_snapshot FROM revisions r;
  -- A carried total for an older snapshot moves by the cases changed since (NULL: counted below).
  IF p_carried_upto < v_snapshot AND p_universe = '' THEN
    v_moved := sds_moved_total(p_dictionary, p_carried_upto, v_snapshot, p_after_revision, p_after_guid, p_exclude);
  END IF;
  RETURN QUERY
    SELECT v_snapshot,
           CASE WHEN w.seen < p_limit THEN w.seen
                WHEN p_carried_upto = v_snapshot THEN p_carried_total
                WHEN v_moved IS NOT NULL THEN p_carried_total + v_moved
                ELSE (SELECT count(*) FROM cases c
                       WHERE c.dictionary_id = p_dictionary AND (c.revision, c.guid) > (p_after_revision, p_after_guid)
                         AND c.revision <= v_snapshot
                         AND (p_universe = '' OR substr(c.case_key, 1, length(p_universe)) = p_universe)
                         AND (cardinality(p_exclude) = 0 OR c.revision <> ALL (p_exclude))) END,
           w.seen, w.guid::text, w.case_key::text, w.label::text, w.data::text, w.verified, w.deleted, w.revision, w.clock::text,
           w.partial_save::text, w.notes::text, w.case_note::text,
           EXISTS (SELECT 1 FROM case_binary_items b WHERE b.dictionary_id = p_dictionary AND b.case_guid = w.guid)
      FROM (SELECT page.*, count(*) OVER () AS seen,
                   sum(octet_length(page.guid) + octet_length(page.case_key) + octet_length(page.label) + octet_length(page.data)
                       + octet_length(page.clock) + octet_length(page.notes) + coalesce(octet_length(page.partial_save), 0)
                       + coalesce(octet_length(page.case_note), 0))
                     OVER (ORDER BY page.revision, page.guid ROWS UNBOUNDED PRECEDING) AS upto,
                   row_number() OVER (ORDER BY page.revision, page.guid) AS k
              FROM (SELECT * FROM cases c
                     WHERE c.dictionary_id = p_dictionary AND (c.revision, c.guid) > (p_after_revision, p_after_guid)
                       AND c.revision <= v_snapshot
                       AND (p_universe = '' OR substr(c.case_key, 1, length(p_universe)) = p_universe)
                       AND (cardinality(p_exclude) = 0 OR c.revision <> ALL (p_exclude))
                     ORDER BY c.revision, c.guid LIMIT p_limit) page) w
     WHERE w.upto <= p_budget OR w.k = 1
     ORDER BY w.revision, w.guid;
  IF NOT FOUND THEN
    snapshot := v_snapshot;
    total := 0;
    seen := 0;
    RETURN NEXT;
  END IF;
END $$;

-- The named page of migration 0037 (the head on the first row only) over the new page function.
CREATE FUNCTION sds_sync_page_named(
  p_name text, p_after_revision bigint, p_after_guid text, p_universe text, p_exclude bigint[],
  p_limit bigint, p_budget bigint, p_carried_dictionary bigint, p_carried_upto bigint, p_carried_total bigint
) RETURNS TABLE (
  d_id bigint, d_name text, d_label text, d_version text, d_description text, d_source_format text, d_sync_name text,
  d_created_at text, d_updated_at text,
  snapshot bigint, total bigint, seen bigint, guid text, case_key text, label text, data text, verified smallint, deleted smallint,
  revision bigint, clock text, partial_save text, notes text, case_note text, has_binary boolean
) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  d dictionaries%ROWTYPE;
BEGIN
  SELECT * INTO d FROM dictionaries x WHERE x.name = p_name OR x.sync_name = p_name ORDER BY x.name = p_name DESC LIMIT 1;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  RETURN QUERY
    SELECT CASE WHEN p.n = 1 THEN d.id END, CASE WHEN p.n = 1 THEN d.name::text END, CASE WHEN p.n = 1 THEN d.label::text END,
           CASE WHEN p.n = 1 THEN d.version::text END, CASE WHEN p.n = 1 THEN d.description::text END,
           CASE WHEN p.n = 1 THEN d.source_format::text END, CASE WHEN p.n = 1 THEN d.sync_name::text END,
           CASE WHEN p.n = 1 THEN d.created_at::text END, CASE WHEN p.n = 1 THEN d.updated_at::text END,
           CASE WHEN p.n = 1 THEN p.snapshot END, CASE WHEN p.n = 1 THEN p.total END, CASE WHEN p.n = 1 THEN p.seen END,
           p.guid, p.case_key, p.label, p.data, p.verified, p.deleted, p.revision, p.clock, p.partial_save, p.notes, p.case_note,
           p.has_binary
      FROM sds_sync_page(d.id, p_after_revision, p_after_guid, p_universe, p_exclude, p_limit, p_budget,
                         CASE WHEN p_carried_dictionary = d.id THEN p_carried_upto END, p_carried_total)
           WITH ORDINALITY AS p(snapshot, total, seen, guid, case_key, label, data, verified, deleted, revision, clock, partial_save,
                                notes, case_note, has_binary, n)
     ORDER BY p.n;
END $$;
