-- The named download page with its head (the dictionary's row, the snapshot, the total, the count
-- seen) on its first row only; the other rows carry NULL there. Node parses every field of every
-- row it receives, and the head repeated on each of a page's 100 rows was a quarter of the
-- server's work of reading a page (docs/decisions.md, "A download page beside its account").
-- Same signature and columns: the repository reads the head from the first row, as it did.
CREATE OR REPLACE FUNCTION sds_sync_page_named(
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
    SELECT CASE WHEN p.n = 1 THEN d.id END, CASE WHEN p.n = 1 THEN d.name::text END, CASE WHEN p.n = 1 THEN d.label::text END,
           CASE WHEN p.n = 1 THEN d.version::text END, CASE WHEN p.n = 1 THEN d.description::text END,
           CASE WHEN p.n = 1 THEN d.source_format::text END, CASE WHEN p.n = 1 THEN d.sync_name::text END,
           CASE WHEN p.n = 1 THEN d.created_at::text END, CASE WHEN p.n = 1 THEN d.updated_at::text END,
           CASE WHEN p.n = 1 THEN p.snapshot END, CASE WHEN p.n = 1 THEN p.total END, CASE WHEN p.n = 1 THEN p.seen END,
           p.guid, p.case_key, p.label, p.data, p.verified, p.deleted, p.revision, p.clock, p.partial_save, p.notes, p.case_note,
           p.created_at, p.modified_at, p.has_binary
      FROM sds_sync_page(d.id, p_after_revision, p_after_guid, p_universe, p_exclude, p_limit, p_budget,
                         CASE WHEN p_carried_dictionary = d.id THEN p_carried_upto END, p_carried_total)
           WITH ORDINALITY AS p(snapshot, total, seen, guid, case_key, label, data, verified, deleted, revision, clock, partial_save,
                                notes, case_note, created_at, modified_at, has_binary, n)
     ORDER BY p.n;
END $$;
