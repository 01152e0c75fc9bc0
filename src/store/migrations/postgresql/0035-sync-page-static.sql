-- A download page's function with its statement written out rather than built and EXECUTEd per
-- call: PL/pgSQL keeps the plan of a static statement for the session, where an EXECUTE planned
-- the page (and its window functions) again on every page, about half the function's time
-- (bench/README.md, "Download pages, side by side"). The optional filters (the universe, the
-- revisions to leave out) are conditions that hold when unused, so one statement serves every page.
-- Each row also says whether its case has binary items, so a page without any is served without a
-- second round trip to look them up (docs/sync.md#binary-items).
DROP FUNCTION sds_sync_page(bigint, bigint, text, text, bigint[], bigint, bigint, bigint, bigint);

CREATE FUNCTION sds_sync_page(
  p_dictionary bigint, p_after_revision bigint, p_after_guid text, p_universe text, p_exclude bigint[],
  p_limit bigint, p_budget bigint, p_carried_upto bigint, p_carried_total bigint
) RETURNS TABLE (
  snapshot bigint, total bigint, seen bigint, guid text, case_key text, label text, data text, verified smallint, deleted smallint,
  revision bigint, clock text, partial_save text, notes text, case_note text, created_at text, modified_at text, has_binary boolean
) LANGUAGE plpgsql STABLE SET enable_bitmapscan = off AS $$
#variable_conflict use_column
DECLARE
  v_snapshot bigint;
BEGIN
  SELECT coalesce(max(r.revision), 0) INTO v_snapshot FROM revisions r;
  RETURN QUERY
    SELECT v_snapshot,
           CASE WHEN w.seen < p_limit THEN w.seen
                WHEN p_carried_upto = v_snapshot THEN p_carried_total
                ELSE (SELECT count(*) FROM cases c
                       WHERE c.dictionary_id = p_dictionary AND (c.revision, c.guid) > (p_after_revision, p_after_guid)
                         AND c.revision <= v_snapshot
                         AND (p_universe = '' OR substr(c.case_key, 1, length(p_universe)) = p_universe)
                         AND (cardinality(p_exclude) = 0 OR c.revision <> ALL (p_exclude))) END,
           w.seen, w.guid::text, w.case_key::text, w.label::text, w.data::text, w.verified, w.deleted, w.revision, w.clock::text,
           w.partial_save::text, w.notes::text, w.case_note::text, w.created_at::text, w.modified_at::text,
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

-- The page of the dictionary a device names (its own name, else its syncable name: the own name
-- wins, as dictionaries.resolve orders them), with the dictionary's row on each row: the lookup and
-- the page in one round trip and one snapshot (a STABLE function's statements all see the calling
-- statement's). No row at all when no dictionary has that name. A carried total is used only when
-- it was carried for this dictionary (its id: identity values are not reused).
CREATE FUNCTION sds_sync_page_named(
  p_name text, p_after_revision bigint, p_after_guid text, p_universe text, p_exclude bigint[],
  p_limit bigint, p_budget bigint, p_carried_dictionary bigint, p_carried_upto bigint, p_carried_total bigint
) RETURNS TABLE (
  d_id bigint, d_name text, d_label text, d_version text, d_description text, d_source_format text, d_sync_name text,
  d_created_at text, d_updated_at text,
  snapshot bigint, total bigint, seen bigint, guid text, case_key text, label text, data text, verified smallint, deleted smallint,
  revision bigint, clock text, partial_save text, notes text, case_note text, created_at text, modified_at text, has_binary boolean
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
    SELECT d.id, d.name::text, d.label::text, d.version::text, d.description::text, d.source_format::text, d.sync_name::text,
           d.created_at::text, d.updated_at::text, p.*
      FROM sds_sync_page(d.id, p_after_revision, p_after_guid, p_universe, p_exclude, p_limit, p_budget,
                         CASE WHEN p_carried_dictionary = d.id THEN p_carried_upto END, p_carried_total) p;
END $$;
